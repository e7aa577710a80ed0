package streamhost

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/indusagi/induscode/addons"
	"github.com/indusagi/induscode/addons/hooks"
	"github.com/indusagi/induscode/addons/manifest"
	"github.com/indusagi/induscode/conductor"
	"github.com/indusagi/induscode/tools/shell"
)

// hookMatcher is one entry of initialize's hooks: the app's callbacks
// for the tools matcher selects.
type hookMatcher struct {
	Matcher         string   `json:"matcher"`
	HookCallbackIDs []string `json:"hookCallbackIds"`
	// Timeout is in seconds.
	Timeout float64 `json:"timeout"`
}

// appHooksID is the addon the app's hooks are registered as.
const appHooksID addons.ID = "sdk-app-hooks"

// applyHooks registers the app's hook callbacks as command hooks of
// Claude Code's contract whose "command" is the callback id and whose
// runner asks the app (see [hookRunner]): they then map onto the addon
// events and their replies are honoured exactly as those of a hook
// script in .claude/settings.json (deny, ask, allow, updatedInput,
// additionalContext, continue: false, a Stop hook's block). An event
// indusr has no counterpart for is named on stderr and left out.
func (h *host) applyHooks(byEvent map[string][]hookMatcher, o *conductor.Options) error {
	var list []hooks.Hook
	for _, event := range sortedKeys(byEvent) {
		if _, _, err := manifest.HookEvent(event); err != nil {
			h.warn("the app's %s hooks are not run: indusr has no such event", event)
			continue
		}
		for _, m := range byEvent[event] {
			timeout := time.Duration(m.Timeout * float64(time.Second))
			for _, id := range m.HookCallbackIDs {
				hk, err := hooks.New(event, m.Matcher, id, timeout)
				if err != nil {
					return fmt.Errorf("the app's %s hook %s: %w", event, id, err)
				}
				hk.Claude = true
				hk.File = "the app's hooks (initialize)"
				list = append(list, hk)
			}
		}
	}
	if len(list) == 0 {
		return nil
	}
	dir := o.Session.Dir
	o.Session.Addons = append(o.Session.Addons, hooks.Addon(appHooksID, list, hooks.Options{
		Dir:    dir,
		Runner: hookRunner{h},
		Report: func(f *addons.Fault) { h.warn("%s", f.Msg) },
	}))
	return nil
}

// hookRunner runs a hook by sending the app a hook_callback request with
// the hook's input, and reads the app's answer as the hook's reply.
type hookRunner struct{ h *host }

func (r hookRunner) ExecInput(ctx context.Context, callbackID string, _ []string, _ string, timeout time.Duration, in shell.ExecInput) (shell.ExecResult, error) {
	var input map[string]any
	if err := json.Unmarshal(in.Stdin, &input); err != nil {
		return shell.ExecResult{Code: -1}, err
	}
	h := r.h
	input["session_id"] = h.sessionID
	if h.c != nil { // SessionStart runs while the conversation opens
		input["permission_mode"] = string(h.c.Mode())
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	resp, err := h.wire.request(ctx, map[string]any{"subtype": "hook_callback", "callback_id": callbackID, "input": input})
	if err != nil {
		if ctx.Err() != nil {
			return shell.ExecResult{Code: -1, Stopped: fmt.Sprintf("the app did not answer within %s", timeout)}, nil
		}
		return shell.ExecResult{Code: -1}, err
	}
	var async struct{ Async bool }
	if json.Unmarshal(resp, &async) == nil && async.Async {
		resp = json.RawMessage(`{}`) // the app goes on by itself; nothing to wait for
	}
	return shell.ExecResult{Stdout: string(resp)}, nil
}

var _ hooks.Runner = hookRunner{}
