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
