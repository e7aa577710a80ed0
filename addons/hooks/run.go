package hooks

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/indusagi/induscode/addons"
	"github.com/indusagi/induscode/internal/jail"
	"github.com/indusagi/induscode/tools/shell"
)

// Runner starts a hook's command: bash -c in dir, in a process group of
// its own that is stopped at the timeout or when ctx ends, with in's
// stdin and variables. The session's *shell.Engine is one.
type Runner interface {
	ExecInput(ctx context.Context, command string, args []string, dir string, timeout time.Duration, in shell.ExecInput) (shell.ExecResult, error)
}

var _ Runner = (*shell.Engine)(nil)

// Options say how hooks run.
type Options struct {
	// Dir is the workspace: where hooks run, and CLAUDE_PROJECT_DIR.
	Dir string
	// SessionID gives the session_id hooks see, asked at each run: an
	// agent's conversation id is known only once its transcript is open,
	// after the hooks are loaded.
	SessionID func() string
	// Runner starts the commands; required.
	Runner Runner
	// Report hears the errors that block nothing (a hook that failed,
	// timed out or printed something that is not a reply) and the
	// messages a hook has for the user (systemMessage, stopReason); nil
	// drops them.
	Report func(*addons.Fault)
	// Sandbox returns the policy a hook's command runs confined by (its
	// addon's grants); nil, or a nil result, runs it with the runner's own.
	Sandbox func(h *Hook) *jail.Policy
	// Check, when set, is asked right before every run of a hook: an
	// error says its code is no longer what was approved. The hook does
	// not run; one that can block a tool call (tool:before) blocks it
	// with the error as the reason, and any other is reported.
	Check func(h *Hook) error
}

// Set runs hooks for one addon: it decides which hooks of an event
// concern a call, runs them in parallel and reads their verdicts.
type Set struct {
	addon addons.ID
	hooks []Hook
	o     Options
	// pending carries updatedInput from the tool:before gate to the
	// transform registered right after it, by tool and arguments.
	pending pendingInputs
	// stopActive says the agent goes on because a Stop hook asked it to.
	stopActive atomic.Bool
}

// NewSet returns the hooks of addon, ready to run.
func NewSet(addon addons.ID, hooks []Hook, o Options) *Set {
	return &Set{addon: addon, hooks: hooks, o: o, pending: pendingInputs{m: map[string][]json.RawMessage{}}}
}

// result is how one hook run ended.
type result struct {
	hook    *Hook
	code    int    // exit code; -1 when it did not run to its end
	stopped string // why it was stopped (timeout, cancellation), if it was
	stderr  string
	reply   *Output
	err     error // it could not start, or its reply is not one
}

// selectHooks returns the hooks of e that concern tool (all for a non-tool
// event), leaving out a repeat of a command already selected, as Claude
// Code runs identical commands once.
func (s *Set) selectHooks(e addons.Event, tool string) []*Hook {
	var out []*Hook
	seen := map[string]bool{}
	for i := range s.hooks {
		h := &s.hooks[i]
		if h.Event != e || (tool != "" && !h.Matches(tool)) || seen[h.Command] {
			continue
		}
		seen[h.Command] = true
		out = append(out, h)
	}
	return out
}

// runAll runs hooks in parallel, each with in (tool_name in the dialect
// of its origin) and its own timeout, and returns their results in the
// order of hooks.
func (s *Set) runAll(ctx context.Context, hooks []*Hook, in Input) []result {
	out := make([]result, len(hooks))
	if len(hooks) == 1 {
		out[0] = s.run(ctx, hooks[0], in)
		return out
	}
	var wg sync.WaitGroup
	for i, h := range hooks {
		wg.Go(func() { out[i] = s.run(ctx, h, in) })
	}
	wg.Wait()
	return out
}

func (s *Set) run(ctx context.Context, h *Hook, in Input) result {
	in.HookEventName = h.Name
	if h.Claude && in.ToolName != "" {
		in.ToolInput = ClaudeInput(in.ToolName, in.ToolInput, s.o.Dir)
		in.ToolName = ClaudeToolName(in.ToolName)
	}
	if s.o.Runner == nil {
		return result{hook: h, code: -1, err: fmt.Errorf("it could not run: the host gave the hooks no runner (hooks.Options.Runner)")}
	}
	if s.o.Check != nil {
		if err := s.o.Check(h); err != nil {
			if h.Event == addons.ToolBefore {
				return result{hook: h, code: 2, stderr: err.Error()}
			}
			return result{hook: h, code: -1, err: fmt.Errorf("it was not run: %w", err)}
		}
	}
	stdin, err := json.Marshal(in)
	if err != nil {
		return result{hook: h, code: -1, err: fmt.Errorf("encoding its request: %w", err)}
	}
	env := []string{"CLAUDE_PROJECT_DIR=" + s.o.Dir}
	if h.AddonDir != "" {
		env = append(env, "INDUSR_ADDON_DIR="+h.AddonDir)
	}
	var sandbox *jail.Policy
	if s.o.Sandbox != nil {
		sandbox = s.o.Sandbox(h)
	}
	r, err := s.o.Runner.ExecInput(ctx, h.Command, nil, s.o.Dir, h.timeout(), shell.ExecInput{Stdin: stdin, Env: env, Sandbox: sandbox})
	res := result{hook: h, code: r.Code, stopped: r.Stopped, stderr: strings.TrimSpace(r.Stderr)}
	if sandbox != nil && r.Code != 0 && jail.Refused(r.Stderr+r.Stdout) {
		res.stderr += "\n" + sandbox.Explain()
	}
	switch {
	case err != nil:
		res.code, res.err = -1, fmt.Errorf("it could not run: %w", err)
	case r.Code == 0 && r.Stopped == "":
		res.reply, res.err = ParseOutput([]byte(r.Stdout))
	}
	return res
}

// report hands a message about hook h to the user.
func (s *Set) report(h *Hook, format string, args ...any) {
	if s.o.Report == nil {
		return
	}
	s.o.Report(&addons.Fault{Kind: addons.HandlerFault, Addon: s.addon, File: h.File, Line: h.Line,
		Msg: fmt.Sprintf("%s hook %q: ", h.Name, h.Command) + fmt.Sprintf(format, args...)})
}

// failed reports what blocks nothing: a hook that could not run, was
// stopped, exited with a code other than 0 and 2, or printed something
// that is not a reply. It reports whether the result has a usable exit
// (0 with a reply or none, or 2).
func (s *Set) failed(r result) bool {
	switch {
	case r.stopped != "":
		s.report(r.hook, "%s; it blocked nothing", r.stopped)
	case r.code == 0 && r.err != nil:
		s.report(r.hook, "exited 0 but %v", r.err)
	case r.err != nil:
		s.report(r.hook, "%v", r.err)
	case r.code != 0 && r.code != 2:
		msg := "exited " + fmt.Sprint(r.code) + ", an error that blocks nothing (exit 2 blocks)"
		if r.stderr != "" {
			msg += ": " + excerpt([]byte(r.stderr))
		}
		s.report(r.hook, "%s", msg)
	default:
		if r.reply != nil && r.reply.SystemMessage != "" {
			s.report(r.hook, "says: %s", r.reply.SystemMessage)
		}
		return false
	}
	return true
}

// blockReason is the reason of a hook that exited 2.
func blockReason(r result) string {
	if r.stderr != "" {
		return r.stderr
	}
	return fmt.Sprintf("the %s hook %q exited 2 without a reason on stderr", r.hook.Name, r.hook.Command)
}

// pendingInputs hands an updatedInput from the gate to the transform.
// Both run for one call, back to back on one goroutine; the key (tool
// and arguments) tells concurrent calls apart, and calls with equal keys
// take equal rewrites in turn.
type pendingInputs struct {
	mu sync.Mutex
	m  map[string][]json.RawMessage
}

func pendingKey(tool string, args json.RawMessage) string { return tool + "\x00" + string(args) }

func (p *pendingInputs) put(key string, v json.RawMessage) {
	p.mu.Lock()
	p.m[key] = append(p.m[key], v)
	p.mu.Unlock()
}

func (p *pendingInputs) empty() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.m) == 0
}

func (p *pendingInputs) take(key string) (json.RawMessage, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	q := p.m[key]
	if len(q) == 0 {
		return nil, false
	}
	v := q[0]
	if len(q) == 1 {
		delete(p.m, key)
	} else {
		p.m[key] = q[1:]
	}
	return v, true
}
