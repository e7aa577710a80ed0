package intent_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/indusagi/induscode/intent"
)

// A tally is the modality of these tests: a running total, with intents
// that add, fail, or write chosen agent events.

type op interface{ isOp() }

type Add struct {
	N int `json:"n" jsonschema:"how much to add"`
}

type Emit struct {
	Events []string `json:"events" jsonschema:"events to write; a leading ! makes an error"`
}

type Fail struct {
	Msg string `json:"msg"`
}

type Reset struct{}

func (Add) isOp()   {}
func (Emit) isOp()  {}
func (Fail) isOp()  {}
func (Reset) isOp() {}

type tally struct {
	Total   int
	Doubled int // compiled
	Adds    int
}

type tallyModality struct {
	trace *[]string // when set, records each step
}

func (m tallyModality) record(step string) {
	if m.trace != nil {
		*m.trace = append(*m.trace, step)
	}
}

func (m tallyModality) Reduce(s tally, in op, fx intent.Effects) (tally, error) {
	m.record("reduce")
	switch in := in.(type) {
	case Add:
		s.Total += in.N
		s.Adds++
		fx.Agent.Output(map[string]int{"total": s.Total})
	case Emit:
		for _, e := range in.Events {
			if msg, ok := strings.CutPrefix(e, "!"); ok {
				fx.Agent.Error(msg)
			} else {
				fx.Agent.Output(e)
			}
		}
	case Fail:
		return s, fmt.Errorf("%s", in.Msg)
	case Reset:
		s = tally{}
	default:
		return s, fmt.Errorf("unhandled %T", in)
	}
	return s, nil
}

func (m tallyModality) Compile(s tally) tally {
	m.record("compile")
	s.Doubled = 2 * s.Total
	return s
}

func tallySet(t testing.TB) *intent.Set[op] {
	t.Helper()
	set, err := intent.NewSet("tally",
		intent.Of[op, Add](intent.Meta{Description: "Add n to the total."}),
		intent.Of[op, Emit](intent.Meta{Description: "Write agent events."}),
		intent.Of[op, Fail](intent.Meta{Name: "fail_now", Description: "Fail with msg."}),
		intent.Of[op, Reset](intent.Meta{Hidden: true}),
	)
	if err != nil {
		t.Fatal(err)
	}
	return set
}

func newTally() *intent.Session[tally, op] {
	return intent.NewSession[tally, op](tallyModality{}, tally{})
}
