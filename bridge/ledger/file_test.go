package ledger

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/indusagi/induscode/tool"
)

func TestFileRoundTrip(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), ".indusvx", "ledger.jsonl")
	f, entries, warnings, err := OpenFile(path)
	if err != nil || len(entries) != 0 || len(warnings) != 0 {
		t.Fatalf("new log: %v %v %v", entries, warnings, err)
	}
	l := Empty().EnrollAll([]EnrollRequest{
		{Capability: capOf("s__a", `{"type":"object"}`), Server: "s"},
		{Capability: capOf("s__b", `{"type":"object"}`), Server: "s"},
	}, at)
	if err := f.Append(l.Log()); err != nil {
		t.Fatal(err)
	}
	l2 := l.WithdrawServer("s", at)
	if err := f.Append(l2.Since(l.Len())); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Append(l2.Log()); err == nil {
		t.Error("append after close must fail")
	}
	f2, entries, warnings, err := OpenFile(path)
	if err != nil || len(warnings) != 0 {
		t.Fatalf("reopen: %v %v", warnings, err)
	}
	defer f2.Close()
	if len(entries) != 4 || entries[0].Op != Enroll || entries[3].Op != Retire {
		t.Fatalf("replayed %d entries: %+v", len(entries), entries)
	}
	r := FromLog(entries)
	if r.NextSeq() != 5 || r.Snapshot().Len() != 0 {
		t.Errorf("replay: next %d live %d", r.NextSeq(), r.Snapshot().Len())
	}
	e := entries[0]
	if e.At != at || e.Server != "s" || e.Capability.Spec().Name != "s__a" || string(e.Capability.Spec().InputSchema) != `{"type":"object"}` {
		t.Errorf("entry did not round-trip: %+v %+v", e, e.Capability.Spec())
	}
	if res := e.Capability.Run(t.Context(), nil, nil); !res.IsError || !strings.Contains(res.PlainText(), "Mount the server") {
		t.Errorf("a replayed capability must explain it has no server: %+v", res)
	}
}

func TestFileTornLastLine(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "ledger.jsonl")
	l := Empty().EnrollAll([]EnrollRequest{
		{Capability: capOf("s__a", `{}`), Server: "s"},
		{Capability: capOf("s__b", `{}`), Server: "s"},
	}, at)
	f, _, _, err := OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Append(l.Log()); err != nil {
		t.Fatal(err)
	}
	f.Close()
	// A crash in the middle of the next write leaves half a line.
	torn := `{"op":"enroll","key":"bk_0123456789abcdef0123456789abcdef","server":"s","se`
	appendRaw(t, path, torn)

	entries, warnings, err := ReadLog(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2 || len(warnings) != 1 || !strings.Contains(warnings[0], "torn last line") {
		t.Fatalf("ReadLog: %d entries, warnings %v", len(entries), warnings)
	}
	if b, _ := os.ReadFile(path); !strings.HasSuffix(string(b), torn) {
		t.Fatal("ReadLog must not change the file")
	}

	// Opening for append cuts the torn tail, so the next batch is clean.
	f2, entries, warnings, err := OpenFile(path)
	if err != nil || len(entries) != 2 || len(warnings) != 1 {
		t.Fatalf("OpenFile: %d entries, %v, %v", len(entries), warnings, err)
	}
	r := FromLog(entries).Retire(ContentKey("s__a", []byte(`{}`)), "s", at)
	if err := f2.Append(r.Since(len(entries))); err != nil {
		t.Fatal(err)
	}
	f2.Close()
	entries, warnings, err = ReadLog(path)
	if err != nil || len(warnings) != 0 || len(entries) != 3 {
		t.Fatalf("after repair: %d entries, %v, %v", len(entries), warnings, err)
	}
	if got := names(FromLog(entries).Live()); !slices.Equal(got, []string{"s__b"}) {
		t.Errorf("live after repair = %v", got)
	}
}

func TestFileSkipsMalformedLines(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "ledger.jsonl")
	good := Empty().Enroll(EnrollRequest{Capability: capOf("s__a", `{}`), Server: "s"}, at)
	f, _, _, _ := OpenFile(path)
	if err := f.Append(good.Log()); err != nil {
		t.Fatal(err)
	}
	f.Close()
	appendRaw(t, path, "this is not json\n\n"+`{"op":"explode","key":"bk_0123456789abcdef0123456789abcdef","server":"s","seq":9,"at":""}`+"\n"+`{"op":"retire","key":"nokey","seq":3}`+"\n")
	entries, warnings, err := ReadLog(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || len(warnings) != 3 {
		t.Fatalf("got %d entries and warnings %q", len(entries), warnings)
	}
	for _, w := range warnings {
		if !strings.Contains(w, "ledger.jsonl"+":") {
			t.Errorf("warning %q does not name the file and line", w)
		}
	}
}

func TestReadLogMissing(t *testing.T) {
	t.Parallel()
	entries, warnings, err := ReadLog(filepath.Join(t.TempDir(), "nope.jsonl"))
	if err != nil || entries != nil || warnings != nil {
		t.Errorf("missing log: %v %v %v", entries, warnings, err)
	}
}

func appendRaw(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

func TestFileLocked(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "ledger.jsonl")
	f, _, _, err := OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := OpenFile(path); !errors.Is(err, ErrLocked) {
		t.Errorf("second open: %v, want ErrLocked", err)
	}
	f.Close()
	f2, _, _, err := OpenFile(path)
	if err != nil {
		t.Fatalf("open after close: %v", err)
	}
	f2.Close()
}

// A log large enough to be decoded in parts keeps its order and reports a
// malformed line by its number in the whole file.
func TestFileLargeLogInParts(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "ledger.jsonl")
	log := benchLog(12_000, 5000, false)
	f, _, _, err := OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Append(log[:9000]); err != nil {
		t.Fatal(err)
	}
	f.Close()
	appendRaw(t, path, "garbage line\n")
	f, _, _, _ = OpenFile(path)
	if err := f.Append(log[9000:]); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if fi, _ := os.Stat(path); fi.Size() < 2*minParallelLog {
		t.Fatalf("log of %d bytes is too small to be split", fi.Size())
	}
	entries, warnings, err := ReadLog(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "ledger.jsonl"+":9001: skipped a malformed entry") {
		t.Errorf("warnings %q", warnings)
	}
	if len(entries) != len(log) {
		t.Fatalf("%d entries, want %d", len(entries), len(log))
	}
	for i, e := range entries {
		if e.Seq != log[i].Seq || e.Key != log[i].Key || e.Op != log[i].Op {
			t.Fatalf("entry %d = %d %s, want %d %s", i, e.Seq, e.Key, log[i].Seq, log[i].Key)
		}
	}
}

func TestSplitLines(t *testing.T) {
	t.Parallel()
	line := strings.Repeat("x", 99) + "\n"
	data := []byte(strings.Repeat(line, 3*minParallelLog/100))
	for _, n := range []int{1, 2, 3, 4, 7} {
		parts := splitLines(data, n)
		if len(parts) > n || len(parts) < 1 {
			t.Errorf("n=%d: %d parts", n, len(parts))
		}
		var joined []byte
		for _, p := range parts {
			if len(p) == 0 || p[len(p)-1] != '\n' {
				t.Errorf("n=%d: a part does not end a line", n)
			}
			joined = append(joined, p...)
		}
		if string(joined) != string(data) {
			t.Errorf("n=%d: parts do not rejoin to the data", n)
		}
	}
}

func TestFileRewrite(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "ledger.jsonl")
	f, _, _, err := OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	l := Empty().EnrollAll([]EnrollRequest{
		{Capability: capOf("s__a", `{"type":"object"}`), Server: "s"},
		{Capability: capOf("s__b", `{"type":"object"}`), Server: "s"},
	}, at).WithdrawServer("s", at)
	if err := f.Append(l.Log()); err != nil {
		t.Fatal(err)
	}
	if err := f.Rewrite(l.Since(2)); err != nil {
		t.Fatal(err)
	}
	// Appends after a rewrite land after the kept entries.
	l2 := l.Enroll(EnrollRequest{Capability: capOf("s__c", `{"type":"object"}`), Server: "s"}, at)
	if err := f.Append(l2.Since(l.Len())); err != nil {
		t.Fatal(err)
	}
	f.Close()
	entries, warnings, err := ReadLog(path)
	if err != nil || len(warnings) != 0 || len(entries) != 3 {
		t.Fatalf("after rewrite: %d entries, %q, %v", len(entries), warnings, err)
	}
	if entries[0].Seq != 3 || entries[2].Seq != 5 || entries[2].Op != Enroll {
		t.Errorf("entries %+v", entries)
	}
	if live := FromLog(entries).Snapshot().Len(); live != 1 {
		t.Errorf("live %d, want 1 (s__c)", live)
	}
}

// A tool's output schema is recorded, so the replayed spec equals the one
// enrolled (a host compares them to decide whether anything changed).
func TestLogKeepsOutputSchema(t *testing.T) {
	t.Parallel()
	out := json.RawMessage(`{"type":"object","properties":{"n":{"type":"number"}}}`)
	c := &tool.Func{S: tool.Spec{Name: "s__t", InputSchema: json.RawMessage(`{"type":"object"}`), OutputSchema: out}}
	l := Empty().Enroll(EnrollRequest{Capability: c, Server: "s"}, at)
	path := filepath.Join(t.TempDir(), "l.jsonl")
	f, _, _, err := OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Twice: the first line takes the full decode, the second the fast
	// path that reuses it.
	if err := f.Append(l.Log()); err != nil {
		t.Fatal(err)
	}
	l2 := l.Enroll(EnrollRequest{Capability: c, Server: "s"}, at)
	if err := f.Append(l2.Since(l.Len())); err != nil {
		t.Fatal(err)
	}
	f.Close()
	entries, _, err := ReadLog(path)
	if err != nil || len(entries) != 2 {
		t.Fatalf("%d entries (%v)", len(entries), err)
	}
	for _, e := range entries {
		if got := e.Capability.Spec().OutputSchema; string(got) != string(out) {
			t.Errorf("seq %d: output schema %s, want %s", e.Seq, got, out)
		}
	}
}
