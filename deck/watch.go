package deck

import (
	"context"
	"encoding/json"
	"log/slog"
	"runtime/debug"

	"github.com/indusagi/induscode/tool"
)

// watched is a deck tool as its Box runs it. When the call's context can
// end and the tool is not known to honor it ([Card.Cancellable],
// tool.Cancellable), the tool runs on a goroutine of its own and the call
// returns as soon as the context ends, even if the tool ignores it (its
// result is then dropped). A cancellable tool runs on the caller's
// goroutine: the handoff, and the fresh goroutine's stack growing through
// JSON decoding and schema validation, were a large part of a small read
// (BENCHMARKS.md). Either way a panic in the tool becomes an IsError result.
//
// The watcher sits right around the tool (and its checkpoint wrapper),
// under whatever the host maps over the deck (the addons' gates and
// interceptors). Those wrappers run on the caller's goroutine: they are
// quick, honor their context, and must not make every call pay for a
// second goroutine handoff (see the addons benchmark in BENCHMARKS.md).
type watched struct {
	inner       tool.Tool
	log         *slog.Logger
	cancellable bool
}

// watch returns t under a watcher; a tool already watched is returned as is.
func watch(t tool.Tool, log *slog.Logger, cancellable bool) tool.Tool {
	if _, ok := t.(*watched); ok {
		return t
	}
	return &watched{inner: t, log: log, cancellable: cancellable}
}

func (w *watched) Spec() tool.Spec { return w.inner.Spec() }

// Unwrap returns the tool inside.
func (w *watched) Unwrap() tool.Tool { return w.inner }

func (w *watched) Run(ctx context.Context, input json.RawMessage, env *tool.Env) tool.Result {
	if w.cancellable || ctx.Done() == nil {
		// A context that can never end needs no watcher goroutine (this
		// keeps the common library path free of allocations), nor does a
		// tool that stops when its context ends.
		return w.call(ctx, input, env)
	}
	done := make(chan tool.Result, 1)
	go func() { done <- w.call(ctx, input, env) }()
	select {
	case r := <-done:
		return r
	case <-ctx.Done():
		select {
		case r := <-done: // finished at the same moment: keep the real result
			return r
		default:
			return interrupted(w.inner.Spec().Name, ctx)
		}
	}
}

func (w *watched) call(ctx context.Context, input json.RawMessage, env *tool.Env) tool.Result {
	return guard(w.log, w.inner, ctx, input, env)
}

// guard runs t, turning a panic into an IsError result logged with its
// stack.
func guard(log *slog.Logger, t tool.Tool, ctx context.Context, input json.RawMessage, env *tool.Env) (res tool.Result) {
	defer func() {
		if r := recover(); r != nil {
			name := t.Spec().Name
			log.Error("tool panicked", "tool", name, "panic", r, "stack", string(debug.Stack()))
			res = tool.Errorf("tool %s failed with an internal error (%v). This is a bug in the tool, not in your input; try another way to reach your goal.", name, r)
		}
	}()
	return t.Run(ctx, input, env)
}
