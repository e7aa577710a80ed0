package intent_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/indusagi/induscode/intent"
)

// tracedSumming is the summing parent, recording its steps.
type tracedSumming struct {
	summing
	trace *[]string
}

func (m tracedSumming) Reduce(s summary, in parentOp, fx intent.Effects) (summary, error) {
	*m.trace = append(*m.trace, "parent reduce")
	return m.summing.Reduce(s, in, fx)
}

func (m tracedSumming) Fold(s summary, id string, child tally) summary {
	*m.trace = append(*m.trace, "parent fold "+id)
	return m.summing.Fold(s, id, child)
}

func (m tracedSumming) Compile(s summary) summary {
	*m.trace = append(*m.trace, "parent compile")
	return m.summing.Compile(s)
}

// tracedTally is the tally modality, recording its steps under a name.
type tracedTally struct {
	name  string
	trace *[]string
}

func (m tracedTally) Reduce(s tally, in op, fx intent.Effects) (tally, error) {
	*m.trace = append(*m.trace, m.name+" reduce")
	return tallyModality{}.Reduce(s, in, fx)
}

func (m tracedTally) Compile(s tally) tally {
	*m.trace = append(*m.trace, m.name+" compile")
	return tallyModality{}.Compile(s)
}

// Every dispatch runs its steps in the documented order (reduce,
// recompile, commit, emit; for a child: warm on first use, the child's own
// cycle, then the parent's fold, recompile and emit) and answers with the
// events its reducer wrote.
func TestDispatchOrder(t *testing.T) {
	var trace []string
	leaf := intent.NewSession[tally, op](tracedTally{"leaf", &trace}, tally{})
	leaf.Subscribe(func(tally) { trace = append(trace, "leaf emit") })
	parent := intent.NewParent[summary, parentOp, tally, op](tracedSumming{trace: &trace}, summary{},
		func(_ context.Context, id string) (*intent.Session[tally, op], error) {
			trace = append(trace, "warm "+id)
			child := intent.NewSession[tally, op](tracedTally{id, &trace}, tally{})
			child.Subscribe(func(tally) { trace = append(trace, id+" emit") })
			return child, nil
		})
	parent.Session().Subscribe(func(summary) { trace = append(trace, "parent emit") })
	trace = nil // the initial compiles

	leafDo := func(in op) func() ([]intent.Event, error) {
		return func() ([]intent.Event, error) { return leaf.Dispatch(context.Background(), in) }
	}
	childDo := func(id string, in op) func() ([]intent.Event, error) {
		return func() ([]intent.Event, error) {
			return parent.DispatchChild(context.Background(), intent.Child[op]{ID: id, Intent: in})
		}
	}
	cases := []struct {
		name   string
		do     func() ([]intent.Event, error)
		steps  []string
		events []string // kind:payload
	}{
		{"leaf success", leafDo(Add{N: 1}), []string{"leaf reduce", "leaf compile", "leaf emit"}, []string{`tool_output:{"total":1}`}},
		{"leaf failure", leafDo(Fail{Msg: "no"}), []string{"leaf reduce"}, []string{"tool_error:no"}},
		{"leaf without events", leafDo(Emit{}), []string{"leaf reduce", "leaf compile", "leaf emit"}, nil},
		{"leaf events in order", leafDo(Emit{Events: []string{"x", "!y", "z"}}), []string{"leaf reduce", "leaf compile", "leaf emit"},
			[]string{`tool_output:"x"`, "tool_error:y", `tool_output:"z"`}},
		{"child on first use", childDo("a", Add{N: 2}), []string{
			"warm a", "a compile", "parent fold a", "parent compile", "parent emit",
			"a reduce", "a compile", "a emit", "parent fold a", "parent compile", "parent emit",
		}, []string{`tool_output:{"total":2}`}},
		{"warm child", childDo("a", Add{N: 1}), []string{
			"a reduce", "a compile", "a emit", "parent fold a", "parent compile", "parent emit",
		}, []string{`tool_output:{"total":3}`}},
		{"child failure", childDo("a", Fail{Msg: "no"}), []string{"a reduce"}, []string{"tool_error:no"}},
		{"parent's own intent", func() ([]intent.Event, error) { return parent.Dispatch(context.Background(), Rename{Title: "t"}) },
			[]string{"parent reduce", "parent compile", "parent emit"}, []string{`tool_output:"renamed"`}},
	}
	// The cases run in order: each starts from the state the last left.
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			trace = nil
			events, err := c.do()
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(trace, c.steps) {
				t.Errorf("steps\n%q\nwant\n%q", trace, c.steps)
			}
			var got []string
			for _, e := range events {
				payload := string(e.Value)
				if e.Kind == intent.ToolError {
					payload = e.Message
				}
				got = append(got, fmt.Sprintf("%v:%s", e.Kind, payload))
			}
			if !slices.Equal(got, c.events) {
				t.Errorf("events %q, want %q", got, c.events)
			}
		})
	}
}
