package toolrun_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/indusagi/induscode/addons"
	"github.com/indusagi/induscode/conductor/toolrun"
	"github.com/indusagi/induscode/provider"
	"github.com/indusagi/induscode/tool"
)

// runner is a Box of test tools.
type runner map[string]tool.Tool

func (r runner) Lookup(name string) (tool.Tool, bool) { t, ok := r[name]; return t, ok }
func (r runner) Run(ctx context.Context, name string, in json.RawMessage) tool.Result {
	t, ok := r[name]
	if !ok {
		return tool.Errorf("unknown tool %q", name)
	}
	return t.Run(ctx, in, nil)
}

func fn(name string, readOnly bool, run func(context.Context) tool.Result) tool.Tool {
	return &tool.Func{S: tool.Spec{Name: name, ReadOnly: readOnly, InputSchema: tool.EmptyObjectSchema()},
		Fn: func(ctx context.Context, _ json.RawMessage, _ *tool.Env) tool.Result { return run(ctx) }}
}

// Read-only calls of one message run together (each waits for the other
// to start), a write waits for them, and the results keep the uses' order.
func TestRunToolUsesParallelReadsOrderedWrites(t *testing.T) {
	t.Parallel()
	var started sync.WaitGroup
	started.Add(2)
	var mu sync.Mutex
	var order []string
	meet := func(name string) func(context.Context) tool.Result {
		return func(context.Context) tool.Result {
			started.Done()
			started.Wait() // both reads are running at once, or this never returns
			mu.Lock()
			order = append(order, name)
			mu.Unlock()
			return tool.Text(name + " done")
		}
	}
	r := runner{
		"read_a": fn("read_a", true, meet("read_a")),
		"read_b": fn("read_b", true, meet("read_b")),
		"write": fn("write", false, func(context.Context) tool.Result {
			mu.Lock()
			defer mu.Unlock()
			if len(order) != 2 {
				return tool.Errorf("write ran before the reads ended: %v", order)
			}
			return tool.Result{}
		}),
		"edit": fn("edit", false, func(context.Context) tool.Result {
			return tool.Result{Blocks: []tool.Block{tool.TextBlock("--- a\n+++ b\n-x\n+y"), tool.JSONBlock(map[string]string{"diff": "--- a\n+++ b\n-x\n+y"})}}
		}),
	}
	uses := []provider.Block{
		{Kind: provider.ToolUseBlock, ID: "1", Name: "read_a"},
		{Kind: provider.ToolUseBlock, ID: "2", Name: "read_b"},
		{Kind: provider.ToolUseBlock, ID: "3", Name: "write"},
		{Kind: provider.ToolUseBlock, ID: "4", Name: "nope"},
		{Kind: provider.ToolUseBlock, ID: "5", Name: "read_a", Input: json.RawMessage(`[1]`)},
		{Kind: provider.ToolUseBlock, ID: "6", Name: "edit"},
	}
	out := toolrun.Run(context.Background(), r, uses, toolrun.Options{
		Check: func(c toolrun.Call) string {
			if c.Use.ID == "6" || c.Use.ID == "3" || c.Use.ID == "1" || c.Use.ID == "2" {
				return ""
			}
			return "not now"
		}})
	for i, b := range out {
		if b.ToolUseID != uses[i].ID {
			t.Fatalf("result %d answers %s", i, b.ToolUseID)
		}
	}
	if out[0].Text != "read_a done" || out[1].Text != "read_b done" {
		t.Errorf("reads: %+v %+v", out[0], out[1])
	}
	if out[2].IsError || out[2].Text != "(no output)" {
		t.Errorf("an empty result is sent as %q (error %v)", out[2].Text, out[2].IsError)
	}
	if out[3].Failure != toolrun.UnknownTool || out[4].Failure != toolrun.InvalidInput {
		t.Errorf("failures %q %q", out[3].Failure, out[4].Failure)
	}
	if strings.Count(out[5].Text, "+y") != 1 {
		t.Errorf("edit's diff arrives more than once: %q", out[5].Text)
	}
}

func TestFailureKinds(t *testing.T) {
	t.Parallel()
	// A real gate at the addons boundary, so the classification follows
	// that boundary's text.
	h := addons.NewHost(addons.HostOptions{})
	h.LoadAddon(&addons.Addon{ID: "guard", Register: func(api addons.API) error {
		api.OnTool(addons.ToolBefore, "refused", addons.Gater(func(context.Context, addons.Payload) addons.Decision {
			return addons.Decision{Stop: true, Reason: "no"}
		}))
		return nil
	}})
	refuse := h.Bundle().Wrap(fn("refused", false, func(context.Context) tool.Result { return tool.Text("ran") }))
	bad := fn("bad", false, func(context.Context) tool.Result { return tool.Errorf("invalid input for bad: field x: missing") })
	boom := fn("boom", false, func(context.Context) tool.Result { return tool.Errorf("disk full") })
	slow := fn("slow", false, func(ctx context.Context) tool.Result { <-ctx.Done(); return tool.Errorf("stopped") })
	r := runner{"refused": refuse, "bad": bad, "boom": boom, "slow": slow}
	uses := []provider.Block{{ID: "1", Name: "refused"}, {ID: "2", Name: "bad"}, {ID: "3", Name: "boom"}}
	out := toolrun.Run(context.Background(), r, uses, toolrun.Options{})
	for i, want := range []provider.Failure{toolrun.Refused, toolrun.InvalidInput, toolrun.Failed} {
		if out[i].Failure != want {
			t.Errorf("use %d: failure %q, want %q", i, out[i].Failure, want)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if out := toolrun.Run(ctx, r, []provider.Block{{ID: "4", Name: "slow"}}, toolrun.Options{}); out[0].Failure != toolrun.Cancelled {
		t.Errorf("cancelled call: %q", out[0].Failure)
	}
}
