package session

// Command hooks and addon processes in the session: the [[hook]] tables
// and [process] addons of the workspace's addons and, with
// Options.ClaudeHooks, the hooks of Claude Code's project settings. Each
// runs commands a repository chose, as the user, by itself, so each runs
// only once the user has approved it as it is (see approval.go).

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/oklog/ulid/v2"

	"github.com/indusagi/induscode/addons"
	"github.com/indusagi/induscode/addons/hooks"
	"github.com/indusagi/induscode/internal/jail"
	"github.com/indusagi/induscode/workspace"
)

// ClaudeHooksAddon is the id of the addon that carries Claude Code's
// hooks; refusals and faults name it.
const ClaudeHooksAddon addons.ID = "claude-settings"

// AddonHooksGuard is the id of the addon that holds the calls guarded by
// a changed [[hook]] of the workspace's addons until it is approved.
const AddonHooksGuard addons.ID = "addon-hooks"

// sessionHooks reads the approvals of the hook groups the session wants:
// the addons' unless NoAddons, Claude Code's only with ClaudeHooks. What
// does not run, and why, is said once. It returns the options hooks run
// with and the approvals (nothing approved when they could not be read).
func (s *Session) sessionHooks(runner hooks.Runner) (o hooks.Options, a *Approvals) {
	id := s.opts.Name
	if id == "" {
		id = ulid.Make().String()
	}
	conv := s.opts.ConversationID
	sessionID := func() string {
		if conv != nil {
			if c := conv(); c != "" {
				return c
			}
		}
		return id
	}
	o = hooks.Options{Dir: s.dir, SessionID: sessionID, Runner: runner, Report: func(f *addons.Fault) { s.warn(f.Error()) }}
	a = s.hookApprovals()
	o.Check = a.checkHook
	// An addon's hook runs within its grants whatever the mode; a hook of
	// Claude Code's settings, which has no grants, as the session's
	// commands run.
	o.Sandbox = func(h *hooks.Hook) *jail.Policy {
		if !h.Claude {
			return s.grantPolicy(a.grantOf(h.File), h.File)
		}
		return s.claudeHookPolicy()
	}
	return o, a
}

// hookApprovals reads the approvals of the hook groups the session
// wants (nothing approved when they could not be read).
func (s *Session) hookApprovals() *Approvals {
	var groups []string
	if !s.opts.NoAddons {
		groups = append(groups, AddonHooks)
	}
	if s.opts.ClaudeHooks {
		groups = append(groups, ClaudeHooks)
	}
	if len(groups) == 0 {
		return &Approvals{Root: s.dir}
	}
	a, err := ReadApprovals(Options{Dir: s.dir, Approvals: s.opts.Approvals, TrustHooks: s.opts.TrustHooks}, groups...)
	if err != nil {
		s.warn(fmt.Sprintf("hooks: %v; the workspace's command hooks and addon processes are not run", err))
		if a == nil {
			a = &Approvals{Root: s.dir}
		}
		return a // what was read, nothing approved
	}
	a.warnPending(s.warn)
	return a
}

// userClaudeHooks are the hooks of the user's own Claude Code settings
// (~/.claude/settings.json), which run without an approval, as Claude
// Code runs them before the project's. When the workspace is the home
// folder that file is the project's too, and keeps the approval it needs
// as such.
func (s *Session) userClaudeHooks() []hooks.Hook {
	home, err := os.UserHomeDir()
	if err != nil {
		return nil
	}
	file := hooks.UserSettingsFile(home)
	for _, f := range hooks.SettingsFiles(workspace.At(s.dir).Root()) {
		if sameFile(f, file) {
			return nil
		}
	}
	hs, faults := hooks.LoadSettingsFiles(file)
	for _, f := range faults {
		s.warn("hooks: " + f.Error())
	}
	return hs
}

// sameFile reports whether a and b name one file: the same path, or the
// same file on disk.
func sameFile(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	x, errA := os.Stat(a)
	y, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(x, y)
}
