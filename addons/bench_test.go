package addons

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"testing"

	"github.com/indusagi/induscode/deck"
	"github.com/indusagi/induscode/tool"
)

// noopBox returns a Box holding only a tool that does nothing, with the
// bundle b (nil: none) wrapped around it as a session wraps its tools.
func noopBox(tb testing.TB, b *Bundle) *deck.Box {
	tb.Helper()
	d, err := deck.Provision(deck.Authoring, deck.Setup{Dir: tb.TempDir(), Framework: deck.Framework{Log: slog.New(slog.DiscardHandler)}})
	if err != nil {
		tb.Fatal(err)
	}
	d.Retain(func(tool.Tool) bool { return false })
	if err := d.Graft(&tool.Func{S: tool.Spec{Name: "noop", InputSchema: tool.EmptyObjectSchema()},
		Fn: func(context.Context, json.RawMessage, *tool.Env) tool.Result { return tool.Result{} }}); err != nil {
		tb.Fatal(err)
	}
	if b != nil {
		d.Map(b.Wrap)
	}
	return d.Box()
}

// benchBundle is the measure: ten interceptors around every tool (each
// with an enter and an exit stage that continue) and five gates on
// tool:before that name other tools, registered as a manifest's [[gate]]
// tables are.
func benchBundle(tb testing.TB) *Bundle {
	tb.Helper()
	h := NewHost(HostOptions{})
	h.LoadAddon(&Addon{ID: "gates", Register: func(api API) error {
		for i := range 5 {
			name := fmt.Sprintf("other%d", i)
			api.OnTool(ToolBefore, name, Gater(func(context.Context, Payload) Decision { return Decision{Stop: true, Reason: "r"} }))
			DescribeGate(api, GateInfo{Event: ToolBefore, Tool: name, Reason: "r"})
		}
		return nil
	}})
	h.LoadAddon(&Addon{ID: "stages", Register: func(api API) error {
		for range 10 {
			api.InterceptTool(AnyTool(),
				func(context.Context, EnterContext) EnterOutcome { return Proceed() },
				func(context.Context, ExitContext) ExitOutcome { return Keep() })
		}
		return nil
	}})
	if len(h.Faults()) > 0 {
		tb.Fatal(h.Faults())
	}
	return h.Bundle()
}

// TestBenchBundleCallsEveryStage makes sure the benchmark measures what it
// claims: every stage runs and no gate stops the call.
func TestBenchBundleCallsEveryStage(t *testing.T) {
	b := benchBundle(t)
	if b.Chain.Len() != 10 || len(b.Gates) != 5 {
		t.Fatalf("%d stages and %d gates", b.Chain.Len(), len(b.Gates))
	}
	if res := noopBox(t, b).Run(context.Background(), "noop", nil); res.IsError {
		t.Fatalf("noop through the chain: %q", res.PlainText())
	}
}

func BenchmarkBoxNoopBare(bb *testing.B) {
	box := noopBox(bb, nil)
	ctx, in := context.Background(), json.RawMessage(`{}`)
	bb.ReportAllocs()
	for bb.Loop() {
		box.Run(ctx, "noop", in)
	}
}

func BenchmarkBoxNoopChain10Gates5(bb *testing.B) {
	box := noopBox(bb, benchBundle(bb))
	ctx, in := context.Background(), json.RawMessage(`{}`)
	bb.ReportAllocs()
	for bb.Loop() {
		box.Run(ctx, "noop", in)
	}
}

// The same two with a context that can end, as every call from the CLI
// (Ctrl-C), serve (notifications/cancelled) and a host with deadlines has:
// the Box then runs the tool beside a watcher, and that is the bare cost a
// real call pays.
func BenchmarkBoxNoopBareCancellable(bb *testing.B) {
	box := noopBox(bb, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	in := json.RawMessage(`{}`)
	bb.ReportAllocs()
	for bb.Loop() {
		box.Run(ctx, "noop", in)
	}
}

func BenchmarkBoxNoopChain10Gates5Cancellable(bb *testing.B) {
	box := noopBox(bb, benchBundle(bb))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	in := json.RawMessage(`{}`)
	bb.ReportAllocs()
	for bb.Loop() {
		box.Run(ctx, "noop", in)
	}
}
