package bridge

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/indusagi/induscode/bridge/ledger"
	"github.com/indusagi/induscode/tool"
)

func TestLedgerIsPersisted(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".indusvx", "ledger.jsonl")
	f := mount(t, Options{LedgerPath: path}, fake("p"))
	if w := f.Warnings(); len(w) != 0 {
		t.Fatalf("warnings %q", w)
	}
	entries, _, err := ledger.ReadLog(path)
	if err != nil || len(entries) != 7 {
		t.Fatalf("after mount the log has %d entries (%v)", len(entries), err)
	}
	for _, e := range entries {
		if e.Op != ledger.Enroll || e.Server != "p" {
			t.Fatalf("entry %+v", e)
		}
		if server, name := e.Capability.(ledger.Origin).Origin(); server != "p" || !strings.HasSuffix(e.Capability.Spec().Name, "__"+name) {
			t.Errorf("origin %s %s for %s", server, name, e.Capability.Spec().Name)
		}
	}

	// A crash and restart re-enrolls the same tools: upserts on the same
	// keys, so the live set does not grow.
	wantError(t, call(t, f, "p__crash", ""), "went away")
	wantText(t, call(t, f, "p__echo", `{"message":"x"}`), "echo: x")
	if l := f.Ledger(); l.Len() != 14 || l.Snapshot().Len() != 7 {
		t.Errorf("after a restart the ledger has %d events and %d live tools, want 14 and 7", l.Len(), l.Snapshot().Len())
	}

	// A second session cannot write the log while this one holds it.
	g := Mount(t.Context(), nil, Options{LedgerPath: path})
	if w := g.Warnings(); len(w) != 1 || !strings.Contains(w[0], "in use by another indusr session") {
		t.Errorf("second session warnings %q", w)
	}
	g.Close()

	f.Close()
	entries, _, _ = ledger.ReadLog(path)
	if len(entries) != 21 || ledger.FromLog(entries).Snapshot().Len() != 0 {
		t.Fatalf("after close the log has %d entries, live %d", len(entries), ledger.FromLog(entries).Snapshot().Len())
	}
}

func TestLedgerReplayWithdrawsStaleSession(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "ledger.jsonl")
	// An earlier session enrolled a tool and died without retiring it; its
	// last write was cut short.
	ghost := ledger.NewRecorded(tool.Spec{Name: "ghost__t", InputSchema: json.RawMessage(`{"type":"object"}`)}, "ghost", "t")
	old := ledger.Empty().Enroll(ledger.EnrollRequest{Capability: ghost, Server: "ghost"}, ledger.Now())
	var buf strings.Builder
	for _, e := range old.Log() {
		b, _ := json.Marshal(e)
		buf.Write(b)
		buf.WriteByte('\n')
	}
	buf.WriteString(`{"op":"enroll","key":"bk_`)
	if err := os.WriteFile(path, []byte(buf.String()), 0o644); err != nil {
		t.Fatal(err)
	}

	f := mount(t, Options{LedgerPath: path}, fake("live"))
	if w := f.Warnings(); len(w) != 1 || !strings.Contains(w[0], "torn last line") {
		t.Errorf("warnings %q", w)
	}
	if got := f.ToolCounts(); len(got) != 1 || got[0].Server != "live" || got[0].Count != 7 {
		t.Errorf("counts %v", got)
	}
	l := f.Ledger()
	if l.Log()[1].Op != ledger.Retire || l.Log()[1].Server != "ghost" || l.Log()[2].Seq != 3 {
		t.Errorf("the stale tool was not retired first: %+v", l.Log()[:3])
	}
	f.Close()
	entries, warnings, _ := ledger.ReadLog(path)
	if len(warnings) != 0 || len(entries) != 1+1+7+7 {
		t.Errorf("log: %d entries, warnings %q", len(entries), warnings)
	}
}

// Sessions keep appending to the log; past MaxLedgerEntries a replay cuts
// it to its newest half, says so, and the next session starts from there.
func TestLedgerIsCompacted(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "ledger.jsonl")
	const limit = 40
	logged, compactions := 0, 0
	for session := range 8 { // 7 tools: 14 events a session
		f := mount(t, Options{LedgerPath: path, MaxLedgerEntries: limit}, fake("p"))
		compacted := strings.Contains(strings.Join(f.Warnings(), "\n"), "kept the newest 20")
		want := logged > limit
		if want {
			logged, compactions = limit/2, compactions+1
		}
		logged += 14
		if compacted != want {
			t.Errorf("session %d: compacted=%v, want %v (warnings %q)", session, compacted, want, f.Warnings())
		}
		f.Close()
		entries, warnings, err := ledger.ReadLog(path)
		if err != nil || len(warnings) != 0 {
			t.Fatalf("session %d: replay: %v %q", session, err, warnings)
		}
		if len(entries) != logged {
			t.Errorf("session %d: the log holds %d events, want %d", session, len(entries), logged)
		}
		if live := ledger.FromLog(entries).Snapshot().Len(); live != 0 {
			t.Errorf("session %d: %d tools live after close", session, live)
		}
		for i := 1; i < len(entries); i++ {
			if entries[i].Seq <= entries[i-1].Seq {
				t.Fatalf("session %d: sequence goes back at %d", session, i)
			}
		}
	}
	if compactions < 2 {
		t.Errorf("%d compactions in 8 sessions, want at least 2", compactions)
	}
}
