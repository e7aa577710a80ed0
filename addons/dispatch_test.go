package addons

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

func TestDispatchKinds(t *testing.T) {
	ctx := context.Background()
	var seen []string
	subs := []Subscription{
		{Addon: "o", Event: ShellEnv, Handler: Observer(func(_ context.Context, p Payload) {
			env := p.(ShellPayload).Env
			seen = append(seen, env["A"])
			env["A"] = "observer was here" // on a copy: nobody else sees it
		})},
		{Addon: "t", Event: ShellEnv, Handler: Transformer(func(_ context.Context, p Payload) Payload {
			env := p.(ShellPayload).Env
			out := map[string]string{"A": env["A"] + "+t", "ADDED": "1"}
			return ShellPayload{Env: out}
		})},
		{Addon: "wrong", Event: ShellEnv, Handler: Transformer(func(context.Context, Payload) Payload { return InputPayload{} })},
		{Addon: "nil", Event: ShellEnv, Handler: Transformer(func(context.Context, Payload) Payload { return nil })},
		{Addon: "panics", Event: ShellEnv, Handler: Observer(func(context.Context, Payload) { panic("x") })},
		{Addon: "o2", Event: ShellEnv, Handler: Observer(func(_ context.Context, p Payload) { seen = append(seen, p.(ShellPayload).Env["A"]) })},
		{Addon: "pass", Event: ShellEnv, Handler: Gater(func(context.Context, Payload) Decision { return Decision{} })},
		{Addon: "other", Event: ChatParams, Handler: Gater(func(context.Context, Payload) Decision { return Decision{Stop: true} })},
	}
	var log faultLog
	d := NewDispatcher(subs, log.add)
	out := d.Dispatch(ctx, ShellEnv, ShellPayload{Env: map[string]string{"A": "a"}})
	env := out.Payload.(ShellPayload).Env
	if out.Stop != nil || env["A"] != "a+t" || env["ADDED"] != "1" {
		t.Errorf("outcome %+v, want the transform's env and no stop", out)
	}
	if strings.Join(seen, ",") != "a,a+t" {
		t.Errorf("observers saw %v, want a then a+t", seen)
	}
	var addons []string
	for _, f := range log.all() {
		if f.Kind != HandlerFault {
			t.Errorf("fault %v is not a handler fault", f)
		}
		addons = append(addons, string(f.Addon))
	}
	if strings.Join(addons, ",") != "wrong,nil,panics" {
		t.Errorf("faults from %v, want wrong,nil,panics", addons)
	}
	if out := d.Dispatch(ctx, ShellEnv, InputPayload{}); out.Stop != nil || len(log.all()) != 4 {
		t.Errorf("a payload of the wrong type: %+v, faults %d; want it refused with a fault", out, len(log.all()))
	}
	if !d.Has(ChatParams) || d.Has(TurnEnd) || d.Len() != len(subs) {
		t.Error("Has/Len disagree with the subscriptions")
	}
}

func TestGatePanicDoesNotStop(t *testing.T) {
	d := NewDispatcher([]Subscription{
		{Addon: "bad", Event: ToolBefore, Handler: Gater(func(context.Context, Payload) Decision { panic("bug") })},
		{Addon: "good", Event: ToolBefore, Handler: Gater(func(context.Context, Payload) Decision { return Decision{Stop: true, Reason: "r"} })},
	}, nil)
	out := d.Dispatch(context.Background(), ToolBefore, ToolPayload{Name: "x"})
	if out.Stop == nil || out.Stop.Addon != "good" {
		t.Errorf("stop %+v, want the good gate's after the panicking one was skipped", out.Stop)
	}
}

// handlerSpec is one generated handler: its kind and, for a gate, whether
// it stops.
type handlerSpec struct {
	kind Kind
	stop bool
}

// TestDispatchOrderProperty: handlers run in registration order up to and
// including the first gate that stops; the payload is the transforms'
// fold in order; every observer sees the payload as it stood at its turn.
func TestDispatchOrderProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		specs := rapid.SliceOfN(rapid.Custom(func(t *rapid.T) handlerSpec {
			return handlerSpec{kind: rapid.SampledFrom(Kinds()).Draw(t, "kind"), stop: rapid.Bool().Draw(t, "stop")}
		}), 0, 12).Draw(t, "handlers")
		var calls []string
		subs := make([]Subscription, len(specs))
		for i, s := range specs {
			id := ID(fmt.Sprint(i))
			switch s.kind {
			case Observe:
				subs[i] = Subscription{Addon: id, Event: InputSubmit, Handler: Observer(func(_ context.Context, p Payload) {
					calls = append(calls, fmt.Sprintf("o%d:%s", i, p.(InputPayload).Text))
				})}
			case Transform:
				subs[i] = Subscription{Addon: id, Event: InputSubmit, Handler: Transformer(func(_ context.Context, p Payload) Payload {
					calls = append(calls, fmt.Sprintf("t%d", i))
					return InputPayload{Text: p.(InputPayload).Text + fmt.Sprint(i)}
				})}
			case Gate:
				subs[i] = Subscription{Addon: id, Event: InputSubmit, Handler: Gater(func(context.Context, Payload) Decision {
					calls = append(calls, fmt.Sprintf("g%d", i))
					return Decision{Stop: s.stop, Reason: fmt.Sprint("r", i)}
				})}
			}
		}
		out := NewDispatcher(subs, nil).Dispatch(context.Background(), InputSubmit, InputPayload{Text: "x"})

		var want []string
		text := "x"
		var stop *Stop
	model:
		for i, s := range specs {
			switch s.kind {
			case Observe:
				want = append(want, fmt.Sprintf("o%d:%s", i, text))
			case Transform:
				want = append(want, fmt.Sprintf("t%d", i))
				text += fmt.Sprint(i)
			case Gate:
				want = append(want, fmt.Sprintf("g%d", i))
				if s.stop {
					stop = &Stop{Addon: ID(fmt.Sprint(i)), Reason: fmt.Sprint("r", i)}
					break model
				}
			}
		}
		if strings.Join(calls, " ") != strings.Join(want, " ") {
			t.Fatalf("calls %v, want %v", calls, want)
		}
		if out.Payload.(InputPayload).Text != text {
			t.Fatalf("payload %q, want %q", out.Payload.(InputPayload).Text, text)
		}
		if (stop == nil) != (out.Stop == nil) || stop != nil && *stop != *out.Stop {
			t.Fatalf("stop %+v, want %+v", out.Stop, stop)
		}
	})
}
