package addons

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/indusagi/induscode/tool"
)

// bundleOf loads in-process addons into a bundle.
func bundleOf(t *testing.T, addons ...*Addon) (*Bundle, *faultLog) {
	t.Helper()
	h := NewHost(HostOptions{})
	var log faultLog
	h.OnFault(log.add)
	for _, a := range addons {
		if !h.LoadAddon(a) {
			t.Fatalf("addon %s did not load: %v", a.ID, log.all())
		}
	}
	return h.Bundle(), &log
}

func TestWrapOrderAndRefusals(t *testing.T) {
	var calls []string
	gate := &Addon{ID: "gatekeeper", Register: func(api API) error {
		api.OnTool(ToolBefore, "echo", Gater(func(_ context.Context, p Payload) Decision {
			calls = append(calls, "gate")
			if strings.Contains(string(p.(ToolPayload).Args), "secret") {
				return Decision{Stop: true, Reason: "secrets stay home"}
			}
			return Decision{}
		}))
		return nil
	}}
	stage := &Addon{ID: "stager", Register: func(api API) error {
		api.InterceptTool(Match{Tool: "echo"}, func(_ context.Context, ec EnterContext) EnterOutcome {
			calls = append(calls, "enter")
			if strings.Contains(string(ec.Args), "forbidden") {
				return Refuse("secrets stay home")
			}
			return Proceed()
		}, nil)
		return nil
	}}
	b, _ := bundleOf(t, gate, stage)
	echo := b.Wrap(echoTool("echo"))
	ctx := context.Background()

	res := echo.Run(ctx, json.RawMessage(`{"x":"hi"}`), nil)
	if res.IsError || res.PlainText() != `{"x":"hi"}` || strings.Join(calls, ",") != "gate,enter" {
		t.Errorf("allowed call: %+v after %v, want the tool's output after gate then enter", res, calls)
	}
	byGate := echo.Run(ctx, json.RawMessage(`{"x":"secret"}`), nil)
	byStage := echo.Run(ctx, json.RawMessage(`{"x":"forbidden"}`), nil)
	for name, r := range map[string]tool.Result{"gate": byGate, "stage": byStage} {
		if !r.IsError || !strings.Contains(r.PlainText(), "secrets stay home") || !strings.Contains(r.PlainText(), "did not run") {
			t.Errorf("refusal by %s: %q, want an error naming the reason", name, r.PlainText())
		}
	}
	if !strings.Contains(byGate.PlainText(), "addon gatekeeper") || !strings.Contains(byStage.PlainText(), "addon stager") {
		t.Errorf("refusals %q / %q do not name their addons", byGate.PlainText(), byStage.PlainText())
	}
	if strings.Replace(byGate.PlainText(), "gatekeeper", "stager", 1) != byStage.PlainText() {
		t.Errorf("the two refusals differ beyond the addon name:\n%q\n%q", byGate.PlainText(), byStage.PlainText())
	}
	if other := b.Wrap(echoTool("other")); other.Spec().Name != "other" {
		t.Error("wrapping changed the spec")
	} else if _, wrapped := other.(*guarded); wrapped {
		t.Error("a tool no addon concerns was wrapped")
	}
}

func TestWrapRewritesArgsAndResults(t *testing.T) {
	a := &Addon{ID: "rw", Register: func(api API) error {
		api.On(ToolBefore, Transformer(func(_ context.Context, p Payload) Payload {
			tp := p.(ToolPayload)
			tp.Args = json.RawMessage(strings.Replace(string(tp.Args), "one", "two", 1))
			return tp
		}))
		api.InterceptTool(AnyTool(), func(_ context.Context, ec EnterContext) EnterOutcome {
			return RewriteArgs(json.RawMessage(strings.Replace(string(ec.Args), "two", "three", 1)))
		}, func(_ context.Context, xc ExitContext) ExitOutcome {
			return RewriteResult(tool.Text("exit saw " + xc.Result.PlainText()))
		})
		api.On(ToolAfter, Transformer(func(_ context.Context, p Payload) Payload {
			tp := p.(ToolPayload)
			r := tool.Text(tp.Result.PlainText() + " with args " + string(tp.Args))
			tp.Result = &r
			return tp
		}))
		return nil
	}}
	b, _ := bundleOf(t, a)
	res := b.Wrap(echoTool("echo")).Run(context.Background(), json.RawMessage(`"one"`), nil)
	want := `exit saw "three" with args "three"`
	if res.PlainText() != want {
		t.Errorf("result %q, want %q", res.PlainText(), want)
	}
}

// TestWrapWithdrawsTextStream: a tool inside the addons' boundary must
// not stream part of its result past the interceptors that may rewrite it.
func TestWrapWithdrawsTextStream(t *testing.T) {
	a := &Addon{ID: "rw", Register: func(api API) error {
		api.InterceptTool(AnyTool(), nil, func(_ context.Context, xc ExitContext) ExitOutcome {
			return RewriteResult(tool.Text("exit saw " + xc.Result.PlainText()))
		})
		return nil
	}}
	b, _ := bundleOf(t, a)
	var sawStream bool
	inner := &tool.Func{S: tool.Spec{Name: "grep", InputSchema: tool.EmptyObjectSchema()},
		Fn: func(ctx context.Context, _ json.RawMessage, _ *tool.Env) tool.Result {
			sawStream = tool.TextStream(ctx) != nil
			return tool.Text("all")
		}}
	var out strings.Builder
	ctx := tool.WithTextStream(context.Background(), &out)
	res := b.Wrap(inner).Run(ctx, json.RawMessage(`{}`), nil)
	if sawStream || res.PlainText() != "exit saw all" || out.Len() != 0 {
		t.Errorf("stream seen inside: %v, result %q, streamed %q", sawStream, res.PlainText(), out.String())
	}
	// Unwrapped, the same tool is offered the stream.
	inner.Run(ctx, json.RawMessage(`{}`), nil)
	if !sawStream {
		t.Error("the stream did not reach an unwrapped tool")
	}
}
