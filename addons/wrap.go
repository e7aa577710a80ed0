package addons

import (
	"context"
	"encoding/json"
	"sync/atomic"

	"github.com/indusagi/induscode/tool"
)

// Refusal is the result of a call an addon refused, by a tool:before gate
// or by an interceptor's enter stage alike: an error naming the addon and
// its reason, so the model knows the call did not run and why.
func Refusal(addon ID, toolName, reason string) tool.Result {
	if reason == "" {
		reason = "no reason given"
	}
	return tool.Errorf("addon %s blocked the call of %s: %s. The tool did not run; do not retry it unchanged.", addon, toolName, reason)
}

// permissionKey carries the decision of a call that needs the user's
// permission (see NeedPermission).
type permissionKey struct{}

// NeedPermission returns ctx for a call that needs the user's
// permission: once the tool:before gates have let it through, the call
// runs if one of them allowed it outright (Decision.Allow, a PreToolUse
// hook's "allow"); otherwise decide is asked (a host asks the user, or
// refuses when no one can be asked) and a non-empty answer refuses the
// call with PermissionRefusal. A host sets it only on calls of a tool
// [Dispatcher.HasTool] says has tool:before subscribers, and decides the
// others itself.
func NeedPermission(ctx context.Context, decide func(context.Context) (refuse string)) context.Context {
	return context.WithValue(ctx, permissionKey{}, decide)
}

// askerKey carries the host's way to ask the user (see WithAsker).
type askerKey struct{}

// WithAsker returns ctx for calls whose host can put a question to the
// user: when a tool:before gate asks for confirmation ([Decision.Ask]),
// ask is called with the gate's reason and a non-empty answer refuses the
// call with PermissionRefusal; an empty one runs it, with no further
// permission asked. Without an asker such a call is refused, saying why.
func WithAsker(ctx context.Context, ask func(ctx context.Context, why string) (refuse string)) context.Context {
	return context.WithValue(ctx, askerKey{}, ask)
}

// PermissionRefusal is the result of a call that needed permission no
// gate gave: why, under a stable opening a caller can tell apart.
func PermissionRefusal(toolName, why string) tool.Result {
	return tool.Errorf("%s%s: %s", PermissionRefused, toolName, why)
}

// PermissionRefused opens the text of every [PermissionRefusal].
const PermissionRefused = "permission needed for the call of "

// Wrap returns t with the bundle around it: the tool:before handlers
// (gates first refuse, transforms may rewrite the arguments), then the
// interceptor chain's enter stages, the tool itself, the exit stages, and
// the tool:after handlers (a transform may replace the result). A tool no
// addon concerns is returned as it is. The handlers and stages that apply
// are chosen once, here, by the tool's name.
func (b *Bundle) Wrap(t tool.Tool) tool.Tool {
	if b == nil || t == nil {
		return t
	}
	name := tool.NameOf(t)
	g := &guarded{
		inner:  t,
		name:   name,
		d:      b.Dispatch,
		before: b.Dispatch.subsFor(ToolBefore, name),
		after:  b.Dispatch.subsFor(ToolAfter, name),
		chain:  b.Chain.For(name),
	}
	if len(g.before) == 0 && len(g.after) == 0 && len(g.chain.stages) == 0 {
		return t
	}
	return g
}

// guarded is a tool with the addons' boundary around it.
type guarded struct {
	inner  tool.Tool
	name   string
	d      *Dispatcher
	before []Subscription
	after  []Subscription
	chain  *Chain
}

// Unwrap returns the tool inside.
func (g *guarded) Unwrap() tool.Tool { return g.inner }

func (g *guarded) Spec() tool.Spec { return g.inner.Spec() }

var calls atomic.Uint64

func (g *guarded) Run(ctx context.Context, input json.RawMessage, env *tool.Env) tool.Result {
	name := g.name
	// Handlers and interceptors see and may rewrite the whole result, so
	// the tool inside must not stream part of it past them.
	ctx = tool.WithTextStream(ctx, nil)
	decide, _ := ctx.Value(permissionKey{}).(func(context.Context) string)
	if decide != nil {
		ctx = context.WithValue(ctx, permissionKey{}, nil) // not for the calls this one makes
	}
	if len(g.before) > 0 {
		out := g.d.run(ctx, ToolBefore, ToolPayload{Name: name, Args: input}, g.before)
		if out.Stop != nil {
			return Refusal(out.Stop.Addon, name, out.Stop.Reason)
		}
		if out.Allowed != "" {
			decide = nil
		}
		input = out.Payload.(ToolPayload).Args
		if out.Ask != nil {
			ask, _ := ctx.Value(askerKey{}).(func(context.Context, string) string)
			if ask == nil {
				return Refusal(out.Ask.Addon, name, out.Ask.Reason+
					" (it asked for the user's confirmation, which this host cannot ask for; the user may run the call themselves)")
			}
			if why := ask(ctx, out.Ask.Reason); why != "" {
				return PermissionRefusal(name, why)
			}
			decide = nil // the user has just confirmed this very call
		}
	}
	if decide != nil {
		if why := decide(ctx); why != "" {
			return PermissionRefusal(name, why)
		}
	}
	var cr CallResult
	if len(g.chain.stages) > 0 {
		ec := EnterContext{Tool: name, CallID: calls.Add(1), Args: input}
		cr = g.chain.run(ctx, ec, g.chain.stages, func(ctx context.Context, args json.RawMessage) tool.Result {
			return g.inner.Run(ctx, args, env)
		})
		if cr.Blocked != nil {
			return Refusal(cr.Blocked.Addon, name, cr.Blocked.Reason)
		}
		input = cr.Args
	} else {
		cr.Result = g.inner.Run(ctx, input, env)
	}
	if len(g.after) > 0 {
		res := cr.Result
		out := g.d.run(ctx, ToolAfter, ToolPayload{Name: name, Args: input, Result: &res}, g.after)
		if p := out.Payload.(ToolPayload); p.Result != nil {
			cr.Result = *p.Result
		}
	}
	return cr.Result
}
