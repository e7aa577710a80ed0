package ledger

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/indusagi/induscode/tool"
)

func capOf(name, schema string) tool.Tool {
	return &tool.Func{
		S:  tool.Spec{Name: name, Label: name, InputSchema: json.RawMessage(schema)},
		Fn: func(context.Context, json.RawMessage, *tool.Env) tool.Result { return tool.Text(name) },
	}
}

func names(ts []tool.Tool) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.Spec().Name
	}
	return out
}

const at = "2026-01-02T03:04:05.000Z"

func TestEmpty(t *testing.T) {
	t.Parallel()
	for _, l := range []Ledger{Empty(), {}} {
		if l.NextSeq() != 1 || l.HighWater() != 0 || l.Len() != 0 || len(l.Live()) != 0 {
			t.Errorf("empty ledger: next %d, high water %d, len %d, live %d", l.NextSeq(), l.HighWater(), l.Len(), len(l.Live()))
		}
	}
}

func TestEnrollRetire(t *testing.T) {
	t.Parallel()
	a, b, c := capOf("s__a", `{"type":"object"}`), capOf("s__b", `{}`), capOf("t__c", `{}`)
	l0 := Empty()
	l1 := l0.EnrollAll([]EnrollRequest{{Capability: a, Server: "s"}, {Capability: b, Server: "s"}, {Capability: c, Server: "t"}}, at)
	if got := names(l1.Live()); !slices.Equal(got, []string{"s__a", "s__b", "t__c"}) {
		t.Fatalf("live = %v", got)
	}
	if l0.Len() != 0 || len(l0.Live()) != 0 {
		t.Fatal("Enroll changed its receiver")
	}
	if l1.NextSeq() != 4 || l1.HighWater() != 3 {
		t.Errorf("next %d high water %d, want 4 and 3", l1.NextSeq(), l1.HighWater())
	}

	// Upsert: enrolling the same tool again keeps one entry in its place.
	a2 := capOf("s__a", `{"type":"object"}`)
	l2 := l1.Enroll(EnrollRequest{Capability: a2, Server: "s"}, at)
	if got := names(l2.Live()); !slices.Equal(got, []string{"s__a", "s__b", "t__c"}) {
		t.Fatalf("after re-enroll live = %v", got)
	}
	if l2.Live()[0] != a2 {
		t.Error("re-enroll did not replace the capability")
	}
	if l2.Len() != 4 {
		t.Errorf("re-enroll must still be logged: len %d", l2.Len())
	}

	// Retire splices and keeps the survivors' order.
	keyB := ContentKey("s__b", json.RawMessage(`{}`))
	l3 := l2.Retire(keyB, "s", at)
	if got := names(l3.Live()); !slices.Equal(got, []string{"s__a", "t__c"}) {
		t.Fatalf("after retire live = %v", got)
	}
	// Unknown key: recorded, no change.
	l4 := l3.Retire(Key("bk_00000000000000000000000000000000"), "s", at)
	if l4.Len() != l3.Len()+1 || !slices.Equal(l4.Snapshot().Keys(), l3.Snapshot().Keys()) {
		t.Error("retire of an unknown key must be recorded and change nothing")
	}
	// Re-enrolling a retired key appends it at the end.
	l5 := l4.Enroll(EnrollRequest{Capability: b, Server: "s"}, at)
	if got := names(l5.Live()); !slices.Equal(got, []string{"s__a", "t__c", "s__b"}) {
		t.Fatalf("after re-enroll of retired live = %v", got)
	}
	if got := l5.Counts(); !slices.Equal(got, []ServerCount{{"s", 2}, {"t", 1}}) {
		t.Errorf("counts = %v", got)
	}
	if got := names(l5.LiveFor("s")); !slices.Equal(got, []string{"s__a", "s__b"}) {
		t.Errorf("LiveFor(s) = %v", got)
	}

	// WithdrawServer retires all of one server in one batch.
	l6 := l5.WithdrawServer("s", at)
	if got := names(l6.Live()); !slices.Equal(got, []string{"t__c"}) {
		t.Fatalf("after withdraw live = %v", got)
	}
	if l6.Len() != l5.Len()+2 || l6.Snapshot().Count("s") != 0 {
		t.Errorf("withdraw: len %d (want %d), count %d", l6.Len(), l5.Len()+2, l6.Snapshot().Count("s"))
	}
	for _, e := range l6.Since(l5.Len()) {
		if e.Op != Retire || e.Server != "s" || e.Capability != nil {
			t.Errorf("withdraw wrote %+v", e)
		}
	}
}

func TestExplicitKey(t *testing.T) {
	t.Parallel()
	k1, k2 := ULIDKey(), ULIDKey()
	a := capOf("s__a", `{}`)
	l := Empty().EnrollAll([]EnrollRequest{{Capability: a, Server: "s", Key: k1}, {Capability: a, Server: "s", Key: k2}}, at)
	if got := l.Snapshot().Keys(); !slices.Equal(got, []Key{k1, k2}) {
		t.Errorf("keys = %v, want the two ULID keys", got)
	}
}

// Forking an older version must not disturb a newer one that shares its
// backing array.
func TestForkedVersionsStayIndependent(t *testing.T) {
	t.Parallel()
	base := Empty().Enroll(EnrollRequest{Capability: capOf("s__x", `{}`), Server: "s"}, at)
	l1 := base.Enroll(EnrollRequest{Capability: capOf("s__a", `{}`), Server: "s"}, at)
	l2 := base.Enroll(EnrollRequest{Capability: capOf("s__b", `{}`), Server: "s"}, at)
	if got := names(l1.Live()); !slices.Equal(got, []string{"s__x", "s__a"}) {
		t.Errorf("l1 live = %v", got)
	}
	if got := l1.Log()[1].Capability.Spec().Name; got != "s__a" {
		t.Errorf("l1's log was overwritten by a fork: second entry is %s", got)
	}
	if got := l2.Log()[1].Capability.Spec().Name; got != "s__b" {
		t.Errorf("l2 second entry is %s", got)
	}
}

func TestFromLogResumes(t *testing.T) {
	t.Parallel()
	l := Empty()
	for i := range 5 {
		l = l.Enroll(EnrollRequest{Capability: capOf(fmt.Sprintf("s__%d", i), `{}`), Server: "s"}, at)
	}
	l = l.Retire(ContentKey("s__2", json.RawMessage(`{}`)), "s", at)
	r := FromLog(l.Log())
	if r.NextSeq() != l.NextSeq() || r.HighWater() != 6 {
		t.Errorf("replayed next %d high water %d, want %d and 6", r.NextSeq(), r.HighWater(), l.NextSeq())
	}
	if !slices.Equal(names(r.Live()), names(l.Live())) {
		t.Errorf("replayed live %v, want %v", names(r.Live()), names(l.Live()))
	}
	// Reduce does not depend on the order of the log.
	log := l.Log()
	slices.Reverse(log)
	if got := Reduce(log).Keys(); !slices.Equal(got, l.Snapshot().Keys()) {
		t.Errorf("reduce of reversed log = %v, want %v", got, l.Snapshot().Keys())
	}
}

func TestOpsHandled(t *testing.T) {
	t.Parallel()
	for op := Enroll; op < opEnd; op++ {
		b, err := op.MarshalText()
		if err != nil {
			t.Fatalf("op %d has no name: %v", op, err)
		}
		var back Op
		if err := back.UnmarshalText(b); err != nil || back != op {
			t.Errorf("op %s does not round-trip: %v", b, err)
		}
		// Reduce must handle every op: a new op that folds to nothing
		// would silently vanish from the live view.
		f := folder{index: map[Key]int{}}
		f.apply(&Entry{Op: Enroll, Key: "bk_k", Seq: 1, Capability: capOf("a", `{}`)})
		f.apply(&Entry{Op: op, Key: "bk_k", Seq: 2, Capability: capOf("b", `{}`)})
		s := f.freeze()
		switch op {
		case Enroll:
			if e, ok := s.Lookup("bk_k"); !ok || e.Capability.Spec().Name != "b" {
				t.Error("enroll did not upsert")
			}
		case Retire:
			if s.Len() != 0 {
				t.Error("retire did not remove")
			}
		default:
			t.Errorf("op %s is not handled by this test; add its semantics", op)
		}
	}
	if _, err := Op(0).MarshalText(); err == nil {
		t.Error("the zero op must not encode")
	}
}
