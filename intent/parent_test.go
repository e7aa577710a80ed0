package intent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/indusagi/induscode/intent"
)

// The parent of these tests sums the totals of its tally children.

type parentOp interface{ isParentOp() }

type Rename struct {
	Title string `json:"title"`
}

func (Rename) isParentOp() {}

type summary struct {
	Title  string
	Totals map[string]int // folded from the children
	Sum    int            // compiled
}

type summing struct{}

func (summing) Reduce(s summary, in parentOp, fx intent.Effects) (summary, error) {
	switch in := in.(type) {
	case Rename:
		s.Title = in.Title
		fx.Agent.Output("renamed")
		return s, nil
	}
	return s, fmt.Errorf("unhandled %T", in)
}

func (summing) Fold(s summary, id string, child tally) summary {
	s.Totals = maps.Clone(s.Totals)
	if s.Totals == nil {
		s.Totals = map[string]int{}
	}
	s.Totals[id] = child.Total
	return s
}

func (summing) Compile(s summary) summary {
	s.Sum = 0
	for _, v := range s.Totals {
		s.Sum += v
	}
	return s
}

type family = intent.Parent[summary, parentOp, tally, op]

// newFamily returns a parent whose children are a and b; warms counts the
// children created.
func newFamily(warms *int) *family {
	var mu sync.Mutex
	warm := func(_ context.Context, id string) (*intent.Session[tally, op], error) {
		if id != "a" && id != "b" {
			return nil, fmt.Errorf("no child %q", id)
		}
		mu.Lock()
		*warms++
		mu.Unlock()
		return newTally(), nil
	}
	return intent.NewParent[summary, parentOp, tally, op](summing{}, summary{}, warm)
}

// A child is created on first use, applies its own intent, and the parent
// folds the child's new state in and recompiles after it.
func TestParentDispatchesToChildren(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var warms int
	p := newFamily(&warms)
	var seen []int
	var kids []int
	p.Session().Subscribe(func(s summary) {
		seen = append(seen, s.Sum)
		kids = append(kids, len(p.Children())) // must not wait for the dispatch
	})

	steps := []struct {
		child string
		in    op
		sum   int
		out   string // the child's last event
	}{
		{"a", Add{N: 2}, 2, `{"total":2}`},
		{"b", Add{N: 5}, 7, `{"total":5}`},
		{"a", Add{N: 1}, 8, `{"total":3}`},
		{"b", Reset{}, 3, ``}, // hidden intents reach children too
	}
	for _, st := range steps {
		events, err := p.DispatchChild(ctx, intent.Child[op]{ID: st.child, Intent: st.in})
		if err != nil {
			t.Fatal(err)
		}
		if got := p.State().Sum; got != st.sum {
			t.Fatalf("after %T on %s the parent's sum is %d, want %d", st.in, st.child, got, st.sum)
		}
		var last string
		if len(events) > 0 {
			last = string(events[len(events)-1].Value)
		}
		if last != st.out {
			t.Fatalf("child events = %+v, want last %s", events, st.out)
		}
	}
	if warms != 2 || !slices.Equal(p.Children(), []string{"a", "b"}) {
		t.Fatalf("children warmed %d times (%v), want each once", warms, p.Children())
	}
	// Warming folds the fresh child in (sum unchanged), then each change
	// folds and recompiles: the subscriber saw every step.
	if want := []int{0, 2, 2, 7, 8, 3}; !slices.Equal(seen, want) {
		t.Fatalf("parent emitted sums %v, want %v", seen, want)
	}
	if want := []int{1, 1, 2, 2, 2, 2}; !slices.Equal(kids, want) {
		t.Fatalf("children seen from the subscriber: %v, want %v", kids, want)
	}

	// A child's failed intent changes neither the child nor the parent.
	before := p.Session().Version()
	events, err := p.DispatchChild(ctx, intent.Child[op]{ID: "a", Intent: Fail{Msg: "nope"}})
	if err != nil || len(events) != 1 || events[0].Kind != intent.ToolError {
		t.Fatalf("failed child intent: %+v, %v", events, err)
	}
	if p.Session().Version() != before {
		t.Fatal("the parent recompiled after a child that committed nothing")
	}

	// The parent's own intents go to its own reducer.
	events, err = p.Dispatch(ctx, Rename{Title: "sums"})
	if err != nil || p.State().Title != "sums" || string(events[0].Value) != `"renamed"` {
		t.Fatalf("own intent: %+v, %v, state %+v", events, err, p.State())
	}
}

// Bad child addresses are errors and change nothing.
func TestParentRefusesBadChildren(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var warms int
	p := newFamily(&warms)
	if _, err := p.DispatchChild(ctx, intent.Child[op]{Intent: Add{N: 1}}); !errors.Is(err, intent.ErrNoChildID) {
		t.Fatalf("no ID: %v", err)
	}
	_, err := p.DispatchChild(ctx, intent.Child[op]{ID: "z", Intent: Add{N: 1}})
	if err == nil || !strings.Contains(err.Error(), `warming child z: no child "z"`) {
		t.Fatalf("unknown child: %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := p.Warm(cctx, "a"); !errors.Is(err, context.Canceled) {
		t.Fatalf("warm with a cancelled context: %v", err)
	}
	if len(p.Children()) != 0 || p.Session().Version() != 0 {
		t.Fatalf("a refused dispatch left children %v or version %d", p.Children(), p.Session().Version())
	}
	nilWarm := intent.NewParent[summary, parentOp, tally, op](summing{}, summary{},
		func(context.Context, string) (*intent.Session[tally, op], error) { return nil, nil })
	if _, err := nilWarm.Warm(ctx, "a"); err == nil {
		t.Fatal("a warm function that returns no session was accepted")
	}
}

// Tools work the same over a parent, one child (At) and every child (ChildTools).
func TestParentTools(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var warms int
	p := newFamily(&warms)
	parentSet, err := intent.NewSet("family", intent.Of[parentOp, Rename](intent.Meta{Description: "Rename."}))
	if err != nil {
		t.Fatal(err)
	}
	rename := intent.Tools(parentSet, p)[0]
	if res := rename.Run(ctx, json.RawMessage(`{"title":"t"}`), nil); res.IsError || p.State().Title != "t" {
		t.Fatalf("rename through the parent: %+v", res)
	}
	addToA := intent.Tools(tallySet(t), p.At("a"))[0]
	addToA.Run(ctx, json.RawMessage(`{"n":4}`), nil)

	tools, err := intent.ChildTools(tallySet(t), p, "child", "which child: a or b")
	if err != nil {
		t.Fatal(err)
	}
	add := tools[0]
	var schema struct {
		Properties map[string]map[string]any `json:"properties"`
		Required   []string                  `json:"required"`
	}
	if err := json.Unmarshal(add.Spec().InputSchema, &schema); err != nil {
		t.Fatal(err)
	}
	if schema.Properties["child"]["description"] != "which child: a or b" || !slices.Equal(schema.Required, []string{"child", "n"}) {
		t.Fatalf("child tool schema: %s", add.Spec().InputSchema)
	}
	cases := []struct {
		name, args string
		isError    bool
		want       string
	}{
		{"routes to b", `{"child":"b","n":3}`, false, `{"total":3}`},
		{"routes to a", `{"child":"a","n":1}`, false, `{"total":5}`},
		{"missing child", `{"n":1}`, true, "field child: missing"},
		{"empty child", `{"child":"","n":1}`, true, "field child: want a non-empty string"},
		{"unknown child", `{"child":"q","n":1}`, true, `no child "q"`},
		{"bad variant args", `{"child":"a","n":"x"}`, true, "invalid arguments for add: field n"},
		{"not an object", `[]`, true, "JSON object"},
	}
	for _, c := range cases {
		res := add.Run(ctx, json.RawMessage(c.args), nil)
		if res.IsError != c.isError || !strings.Contains(res.PlainText(), c.want) {
			t.Errorf("%s: %+v, want isError=%v and %q", c.name, res, c.isError, c.want)
		}
	}
	if p.State().Sum != 8 {
		t.Fatalf("sum = %d, want 8 (a: 4+1, b: 3)", p.State().Sum)
	}
	if _, err := intent.ChildTools(tallySet(t), p, "n", ""); err == nil || !strings.Contains(err.Error(), `already has a property "n"`) {
		t.Fatalf("a child field that collides with a variant's field: %v", err)
	}
}

// Calls into several children and the parent at once are race-free and
// lose nothing.
func TestParentConcurrent(t *testing.T) {
	defer goleak.VerifyNone(t)
	var warms int
	p := newFamily(&warms)
	tools, err := intent.ChildTools(tallySet(t), p, "child", "")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Go(func() {
			child := []string{"a", "b"}[i%2]
			if res := tools[0].Run(context.Background(), json.RawMessage(`{"child":"`+child+`","n":1}`), nil); res.IsError {
				t.Error(res.PlainText())
			}
		})
		wg.Go(func() { p.Dispatch(context.Background(), Rename{Title: fmt.Sprint(i)}) })
	}
	wg.Wait()
	if st := p.State(); st.Sum != 40 || st.Totals["a"] != 20 || st.Totals["b"] != 20 || warms != 2 {
		t.Fatalf("state %+v after 40 adds, %d warms", st, warms)
	}
}
