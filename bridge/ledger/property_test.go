package ledger

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// genOps drives a ledger through random enroll, retire and withdraw
// transitions over a small name space, so keys repeat and collide.
func genLedger(t *rapid.T) Ledger {
	servers := []string{"s", "t", "u"}
	l := Empty()
	n := rapid.IntRange(0, 60).Draw(t, "ops")
	for range n {
		server := rapid.SampledFrom(servers).Draw(t, "server")
		tool := fmt.Sprintf("%s__%d", server, rapid.IntRange(0, 5).Draw(t, "tool"))
		schema := fmt.Sprintf(`{"type":"object","v":%d}`, rapid.IntRange(0, 1).Draw(t, "schema"))
		switch rapid.IntRange(0, 9).Draw(t, "kind") {
		case 0, 1, 2, 3, 4:
			l = l.Enroll(EnrollRequest{Capability: capOf(tool, schema), Server: server}, at)
		case 5, 6, 7:
			l = l.Retire(ContentKey(tool, json.RawMessage(schema)), server, at)
		case 8:
			l = l.WithdrawServer(server, at)
		case 9:
			l = l.Enroll(EnrollRequest{Capability: capOf(tool, schema), Server: server, Key: ULIDKey()}, at)
		}
	}
	return l
}

func sameSnapshot(t *rapid.T, what string, got, want Snapshot) {
	if !slices.Equal(got.Keys(), want.Keys()) {
		t.Fatalf("%s: keys %v, want %v", what, got.Keys(), want.Keys())
	}
	if !slices.Equal(names(got.Live()), names(want.Live())) {
		t.Fatalf("%s: live %v, want %v", what, names(got.Live()), names(want.Live()))
	}
	if !slices.Equal(got.ByServer(), want.ByServer()) {
		t.Fatalf("%s: by server %v, want %v", what, got.ByServer(), want.ByServer())
	}
	if got.HighWater() != want.HighWater() {
		t.Fatalf("%s: high water %d, want %d", what, got.HighWater(), want.HighWater())
	}
}

func TestPropertyReduceIgnoresInputOrder(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		l := genLedger(t)
		log := l.Log()
		shuffled := slices.Clone(log)
		perm := rapid.Permutation(shuffled).Draw(t, "perm")
		sameSnapshot(t, "shuffled", Reduce(perm), Reduce(log))
		if !slices.EqualFunc(log, l.Log(), func(a, b Entry) bool { return a.Seq == b.Seq }) {
			t.Fatal("Reduce modified its input")
		}
	})
}

func TestPropertyReplayEqualsLive(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	run := 0
	rapid.Check(t, func(t *rapid.T) {
		l := genLedger(t)
		// The incremental snapshot equals the fold of the log.
		sameSnapshot(t, "live vs reduce", l.Snapshot(), Reduce(l.Log()))
		r := FromLog(l.Log())
		sameSnapshot(t, "from log", r.Snapshot(), l.Snapshot())
		if r.NextSeq() != l.NextSeq() {
			t.Fatalf("next seq %d, want %d", r.NextSeq(), l.NextSeq())
		}
		// And through the file, in batches of random size.
		run++
		path := filepath.Join(dir, fmt.Sprintf("l%d.jsonl", run))
		f, _, _, err := OpenFile(path)
		if err != nil {
			t.Fatal(err)
		}
		log := l.Log()
		for len(log) > 0 {
			n := rapid.IntRange(1, len(log)).Draw(t, "batch")
			if err := f.Append(log[:n]); err != nil {
				t.Fatal(err)
			}
			log = log[n:]
		}
		f.Close()
		entries, warnings, err := ReadLog(path)
		if err != nil || len(warnings) > 0 {
			t.Fatalf("ReadLog: %v %v", err, warnings)
		}
		fr := FromLog(entries)
		sameSnapshot(t, "from file", fr.Snapshot(), l.Snapshot())
		for i, e := range fr.Snapshot().Entries() {
			want := l.Snapshot().Entries()[i]
			if g, w := e.Capability.Spec(), want.Capability.Spec(); g.Name != w.Name || string(g.InputSchema) != string(w.InputSchema) {
				t.Fatalf("replayed spec %+v, want %+v", g, w)
			}
		}
		// Continuing the replayed ledger continues the sequence.
		if next := fr.Retire(ULIDKey(), "s", at); next.HighWater() != l.NextSeq() {
			t.Fatalf("after replay the next event got seq %d, want %d", next.HighWater(), l.NextSeq())
		}
	})
}

// genJSON draws a JSON value whose objects are written in a random member
// order and with random spacing.
func genJSON(t *rapid.T, depth int) (canonicalish any) {
	kind := rapid.IntRange(0, 5).Draw(t, "kind")
	if depth > 3 {
		kind = rapid.IntRange(0, 3).Draw(t, "leaf")
	}
	switch kind {
	case 0:
		return nil
	case 1:
		return rapid.Bool().Draw(t, "bool")
	case 2:
		return rapid.Float64Range(-1e6, 1e6).Draw(t, "num")
	case 3:
		return rapid.StringMatching(`[a-zA-Z0-9 é"\\]{0,6}`).Draw(t, "str")
	case 4:
		n := rapid.IntRange(0, 4).Draw(t, "len")
		arr := make([]any, n)
		for i := range arr {
			arr[i] = genJSON(t, depth+1)
		}
		return arr
	default:
		keys := rapid.SliceOfNDistinct(rapid.StringMatching(`[a-z]{1,4}`), 0, 5, rapid.ID[string]).Draw(t, "keys")
		m := make(map[string]any, len(keys))
		for _, k := range keys {
			m[k] = genJSON(t, depth+1)
		}
		return m
	}
}

// writeShuffled writes v as JSON with object members in a drawn order.
func writeShuffled(t *rapid.T, sb *strings.Builder, v any) {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		keys = rapid.Permutation(keys).Draw(t, "order")
		sb.WriteString("{ ")
		for i, k := range keys {
			if i > 0 {
				sb.WriteString(" ,\n")
			}
			b, _ := json.Marshal(k)
			sb.Write(b)
			sb.WriteString(" : ")
			writeShuffled(t, sb, x[k])
		}
		sb.WriteString("}")
	case []any:
		sb.WriteString("[")
		for i, e := range x {
			if i > 0 {
				sb.WriteString(", ")
			}
			writeShuffled(t, sb, e)
		}
		sb.WriteString("]")
	default:
		b, _ := json.Marshal(x)
		sb.Write(b)
	}
}

func TestPropertyContentKeyIgnoresMemberOrder(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		v := genJSON(t, 0)
		var a, b strings.Builder
		writeShuffled(t, &a, v)
		writeShuffled(t, &b, v)
		ka := ContentKey("s__t", json.RawMessage(a.String()))
		kb := ContentKey("s__t", json.RawMessage(b.String()))
		if ka != kb {
			t.Fatalf("keys differ for one schema in two member orders:\n%s\n%s", a.String(), b.String())
		}
	})
}

func TestPropertyContentKeyChangesWithSchema(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		v := genJSON(t, 0)
		w := genJSON(t, 0)
		va, _ := Canonical(mustJSON(v))
		wa, _ := Canonical(mustJSON(w))
		ka := ContentKey("s__t", mustJSON(v))
		kb := ContentKey("s__t", mustJSON(w))
		if (string(va) == string(wa)) != (ka == kb) {
			t.Fatalf("schemas %s and %s: equal canonical forms %v but equal keys %v", va, wa, string(va) == string(wa), ka == kb)
		}
		// Wrapping the schema in a new member is always a change.
		wrapped := mustJSON(map[string]any{"type": "object", "x": v})
		if ContentKey("s__t", wrapped) == ContentKey("s__t", mustJSON(map[string]any{"type": "object", "y": v})) {
			t.Fatal("renaming a member did not change the key")
		}
	})
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// A compacted log replays to the same live set, entry for entry, and its
// sequences still only go up, so a host may rewrite its log with it.
func TestPropertyCompactKeepsLiveSet(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		l := genLedger(t)
		keep := rapid.IntRange(0, l.Len()+1).Draw(t, "keep")
		c := l.Compact(keep)
		if len(c) > l.Snapshot().Len()+keep {
			t.Fatalf("compacted to %d events, more than %d live + %d kept", len(c), l.Snapshot().Len(), keep)
		}
		for i := 1; i < len(c); i++ {
			if c[i].Seq <= c[i-1].Seq {
				t.Fatalf("sequence goes back at %d: %d after %d", i, c[i].Seq, c[i-1].Seq)
			}
		}
		got, want := Reduce(c), l.Snapshot()
		if got.Len() != want.Len() {
			t.Fatalf("compacted log has %d live, want %d", got.Len(), want.Len())
		}
		for _, w := range want.Entries() {
			g, ok := got.Lookup(w.Key)
			if !ok || g.Seq != w.Seq || g.Capability != w.Capability {
				t.Fatalf("key %s: compacted %+v, want %+v", w.Key, g, w)
			}
		}
		if keep > 0 && l.Len() > 0 && got.HighWater() != want.HighWater() {
			t.Fatalf("high water %d, want %d", got.HighWater(), want.HighWater())
		}
	})
}
