package bridge

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/indusagi/induscode/bridge/ledger"
	"github.com/indusagi/induscode/bridge/mcpconfig"
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

	// A crash and restart lists the same tools: nothing is written, but
	// watchers hear that the server's tools are back.
	var notified atomic.Int32
	stop := f.OnChange(func() { notified.Add(1) })
	defer stop()
	wantError(t, call(t, f, "p__crash", ""), "went away")
	wantText(t, call(t, f, "p__echo", `{"message":"x"}`), "echo: x")
	if notified.Load() == 0 {
		t.Error("OnChange was not called after the restart")
	}
	if l := f.Ledger(); l.Len() != 7 || l.Snapshot().Len() != 7 {
		t.Errorf("after a restart the ledger has %d events and %d live tools, want 7 and 7", l.Len(), l.Snapshot().Len())
	}

	// A second session cannot write the log while this one holds it. It
	// replays it, and with the same tools has nothing to keep and nothing
	// to say: a command run beside a server stays quiet.
	g := mount(t, Options{LedgerPath: path}, fake("p"))
	if w := g.Warnings(); len(w) != 0 {
		t.Errorf("second session with the same tools warned %q", w)
	}
	if l := g.Ledger(); l.Len() != 7 || l.Snapshot().Len() != 7 {
		t.Errorf("second session replayed %d events and %d live tools, want 7 and 7", l.Len(), l.Snapshot().Len())
	}
	g.Close()
	// One with tools the log does not hold says once that it keeps them
	// in memory only.
	h := mount(t, Options{LedgerPath: path}, fake("p"), fake("q"))
	if w := h.Warnings(); len(w) != 1 || !strings.Contains(w[0], "in use by another indusr session") ||
		!strings.Contains(w[0], "kept in memory only") {
		t.Errorf("second session with new tools warned %q, want one warning", w)
	}
	h.Close()
	if entries, _, _ := ledger.ReadLog(path); len(entries) != 7 {
		t.Errorf("the second session wrote the log: %d entries", len(entries))
	}

	// Closing records nothing: the tools stay live in the log for the
	// next command.
	f.Close()
	entries, _, _ = ledger.ReadLog(path)
	if len(entries) != 7 || ledger.FromLog(entries).Snapshot().Len() != 7 {
		t.Fatalf("after close the log has %d entries, live %d; want 7 and 7", len(entries), ledger.FromLog(entries).Snapshot().Len())
	}
}

// Commands in a row with an unchanged configuration (ten of them) write
// the ledger once: the first enrolls every tool, the others find them
// there.
func TestLedgerUnchangedConfigWritesNothing(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		runs    int
		servers func(t *testing.T) []mcpconfig.Server
	}{
		{"fake", 10, func(*testing.T) []mcpconfig.Server {
			return []mcpconfig.Server{fake("p"), fake("q", "-mode", "notype")}
		}},
		// A real server: its schemas (output schemas too) and descriptions
		// must compare equal after the trip through the log, or every
		// command re-enrolls. Three runs show it; Node costs a second each.
		{"server-everything", 3, func(t *testing.T) []mcpconfig.Server { return []mcpconfig.Server{everythingStdio(t)} }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			servers := tc.servers(t)
			path := filepath.Join(t.TempDir(), "ledger.jsonl")
			names := make([]string, len(servers))
			for i, s := range servers {
				names[i] = s.Name
			}
			var first []byte
			for run := range tc.runs {
				f := mount(t, Options{LedgerPath: path, Configured: names}, servers...)
				if len(f.Tools()) == 0 || len(f.Warnings()) != 0 {
					t.Fatalf("run %d: %d tools, warnings %q, status %+v", run, len(f.Tools()), f.Warnings(), f.Status())
				}
				for _, tl := range f.Tools() {
					if _, ok := tl.(*capability); !ok {
						t.Fatalf("run %d: %s is not a live capability", run, tl.Spec().Name)
					}
				}
				if err := f.Close(); err != nil {
					t.Fatal(err)
				}
				b, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				if run == 0 {
					first = b
					continue
				}
				if string(b) != string(first) {
					lines := strings.Count(string(b), "\n") - strings.Count(string(first), "\n")
					t.Fatalf("run %d added %d ledger lines to an unchanged configuration:\n%s", run, lines, b[len(first):])
				}
			}
		})
	}
}

// Only real changes are events: a tool the server no longer lists, a new
// one, a server removed from the configuration. A server the command does
// not mount keeps its tools in the log, and the fleet does not offer them.
func TestLedgerRecordsRealChanges(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "ledger.jsonl")
	run := func(configured []string, servers ...mcpconfig.Server) []ledger.Entry {
		t.Helper()
		before, _, _ := ledger.ReadLog(path)
		mount(t, Options{LedgerPath: path, Configured: configured}, servers...).Close()
		after, _, err := ledger.ReadLog(path)
		if err != nil {
			t.Fatal(err)
		}
		return after[len(before):]
	}
	ops := func(es []ledger.Entry) map[string]int {
		m := map[string]int{}
		for _, e := range es {
			m[e.Op.String()+" "+e.Server]++
		}
		return m
	}
	steps := []struct {
		name       string
		configured []string
		servers    []mcpconfig.Server
		want       map[string]int
	}{
		{"first mount enrolls", []string{"a", "b"}, []mcpconfig.Server{fake("a"), fake("b")}, map[string]int{"enroll a": 7, "enroll b": 7}},
		{"mounting only a writes nothing", []string{"a", "b"}, []mcpconfig.Server{fake("a")}, map[string]int{}},
		{"a lists two more tools", []string{"a", "b"}, []mcpconfig.Server{fake("a", "-tools", "2")}, map[string]int{"enroll a": 2}},
		{"a lists them no more", []string{"a", "b"}, []mcpconfig.Server{fake("a")}, map[string]int{"retire a": 2}},
		{"unknown configuration retires nothing", nil, []mcpconfig.Server{fake("a")}, map[string]int{}},
		{"b removed from the configuration", []string{"a"}, []mcpconfig.Server{fake("a")}, map[string]int{"retire b": 7}},
	}
	for _, st := range steps {
		if got := ops(run(st.configured, st.servers...)); !maps.Equal(got, st.want) {
			t.Errorf("%s: events %v, want %v", st.name, got, st.want)
		}
	}
	entries, _, _ := ledger.ReadLog(path)
	if got := ledger.FromLog(entries).Counts(); len(got) != 1 || got[0].Server != "a" || got[0].Count != 7 {
		t.Errorf("live at the end: %v, want a's 7 tools", got)
	}

	// A fleet that mounts a only offers a's tools, though the log holds b's.
	mount(t, Options{LedgerPath: path}, fake("b")).Close()
	g := mount(t, Options{LedgerPath: path}, fake("a"))
	if got := g.ToolCounts(); len(got) != 1 || got[0].Server != "a" || got[0].Count != 7 {
		t.Errorf("tool counts %v, want only a's 7 tools", got)
	}
	for _, tl := range g.Tools() {
		if strings.HasPrefix(tl.Spec().Name, "b__") {
			t.Errorf("the fleet offers %s, a tool of a server it did not mount", tl.Spec().Name)
		}
	}
	if n := g.Ledger().Snapshot().Count("b"); n != 7 {
		t.Errorf("the ledger holds %d of b's tools, want 7", n)
	}
}

func TestLedgerReplayRetiresRemovedServer(t *testing.T) {
	t.Parallel()
	// An earlier session enrolled a tool of server "ghost"; its last write
	// was cut short.
	ghost := ledger.NewRecorded(tool.Spec{Name: "ghost__t", InputSchema: json.RawMessage(`{"type":"object"}`)}, "ghost", "t")
	old := ledger.Empty().Enroll(ledger.EnrollRequest{Capability: ghost, Server: "ghost"}, ledger.Now())
	var buf strings.Builder
	for _, e := range old.Log() {
		b, _ := json.Marshal(e)
		buf.Write(b)
		buf.WriteByte('\n')
	}
	buf.WriteString(`{"op":"enroll","key":"bk_`)

	cases := []struct {
		name       string
		configured []string
		wantLog    int  // events in the log after close
		retired    bool // ghost's tool is retired first
	}{
		{"ghost is no longer configured", []string{"live"}, 1 + 1 + 7, true},
		{"ghost is configured but not mounted", []string{"live", "ghost"}, 1 + 7, false},
		{"configuration unknown", nil, 1 + 7, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "ledger.jsonl")
			if err := os.WriteFile(path, []byte(buf.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			f := mount(t, Options{LedgerPath: path, Configured: tc.configured}, fake("live"))
			if w := f.Warnings(); len(w) != 1 || !strings.Contains(w[0], "torn last line") {
				t.Errorf("warnings %q", w)
			}
			if got := f.ToolCounts(); len(got) != 1 || got[0].Server != "live" || got[0].Count != 7 {
				t.Errorf("counts %v", got)
			}
			l := f.Ledger()
			if second := l.Log()[1]; (second.Op == ledger.Retire && second.Server == "ghost") != tc.retired {
				t.Errorf("second event %+v; ghost retired: want %v", second, tc.retired)
			}
			f.Close()
			entries, warnings, _ := ledger.ReadLog(path)
			if len(warnings) != 0 || len(entries) != tc.wantLog {
				t.Errorf("log: %d entries, want %d; warnings %q", len(entries), tc.wantLog, warnings)
			}
		})
	}
}

// The log grows by each change; past MaxLedgerEntries a replay cuts it to
// its newest half plus the enrollments still live from before, says so,
// and the cut log replays to the same live tools.
func TestLedgerIsCompacted(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "ledger.jsonl")
	const limit = 40
	compactions := 0
	for session := range 16 {
		// Every other session lists 5 extra tools: 5 enrolls, then 5
		// retires.
		extra := 5 * (session % 2)
		f := mount(t, Options{LedgerPath: path, MaxLedgerEntries: limit}, fake("p", "-tools", strconv.Itoa(extra)))
		if strings.Contains(strings.Join(f.Warnings(), "\n"), "kept the newest 20") {
			compactions++
		}
		if n := len(f.Tools()); n != 7+extra {
			t.Fatalf("session %d: %d tools, want %d (status %+v, warnings %q)", session, n, 7+extra, f.Status(), f.Warnings())
		}
		f.Close()
		entries, warnings, err := ledger.ReadLog(path)
		if err != nil || len(warnings) != 0 {
			t.Fatalf("session %d: replay: %v %q", session, err, warnings)
		}
		t.Logf("session %d: %d events, warnings %q", session, len(entries), f.Warnings())
		if len(entries) > limit+5 {
			t.Errorf("session %d: the log holds %d events, over the limit of %d plus one session's 5", session, len(entries), limit)
		}
		if live := ledger.FromLog(entries).Snapshot().Len(); live != 7+extra {
			t.Errorf("session %d: %d tools live after close, want %d", session, live, 7+extra)
		}
		for i := 1; i < len(entries); i++ {
			if entries[i].Seq <= entries[i-1].Seq {
				t.Fatalf("session %d: sequence goes back at %d", session, i)
			}
		}
	}
	if compactions < 2 {
		t.Errorf("%d compactions in 16 sessions, want at least 2", compactions)
	}
}
