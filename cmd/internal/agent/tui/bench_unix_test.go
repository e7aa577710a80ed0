//go:build unix

package tui_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/indusagi/induscode/internal/fakemodel"
)

// The terminal's benchmark (scripts/bench-tui runs it, and Claude Code
// beside it when BENCH_CLAUDE names its program): while the model server
// streams an answer at tokensPerSecond, keys are typed into the input
// one at a time and each is timed from its write to the terminal to the
// screen showing it; also the time from start to an input that takes
// keys, and the resident memory at idle. Figures go to BENCHMARKS.md
// from a quiet machine only.
const (
	tokensPerSecond = 200
	keystrokes      = 200
	// pieceTokens is what one piece of the fake stream holds (16 bytes).
	pieceTokens = 4
)

// streamed is an answer long enough to outlast the keystrokes, with no
// 'z' in it: the typed key is found on the screen by counting them.
func streamed() string {
	words := strings.Fields("the quick brown fox jumps over the lazy dog while a model streams its answer " +
		"one piece at a time and the terminal keeps up with every key")
	var b strings.Builder
	for i := 0; b.Len() < 16*tokensPerSecond/pieceTokens*40; i++ {
		w := strings.ReplaceAll(words[i%len(words)], "z", "s")
		b.WriteString(w)
		if i%12 == 11 {
			b.WriteString("\n\n")
		} else {
			b.WriteByte(' ')
		}
	}
	return b.String()
}

type peer struct {
	name  string
	argv  []string
	ready []string // one is on screen once the input takes keys
	setup func(tb testing.TB, home, dir string)
}

func BenchmarkTerminal(b *testing.B) {
	peers := []peer{{name: "indusr", argv: []string{buildAgent(b)}, ready: []string{"Ask for a change"}}}
	if claude := os.Getenv("BENCH_CLAUDE"); claude != "" {
		peers = append(peers, peer{name: "claude-code", argv: []string{claude}, ready: []string{"for shortcuts", "shift+tab to cycle"}, setup: claudeHome})
	}
	for _, p := range peers {
		b.Run(p.name, func(b *testing.B) {
			var lat []time.Duration
			var start time.Duration
			var idle int64
			for i := 0; i < b.N; i++ {
				l, s, r := session(b, p)
				lat, start, idle = append(lat, l...), s, r
			}
			sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
			at := func(q float64) float64 {
				return float64(lat[min(int(q*float64(len(lat))), len(lat)-1)].Microseconds()) / 1000
			}
			b.ReportMetric(at(0.5), "key-p50-ms")
			b.ReportMetric(at(0.99), "key-p99-ms")
			b.ReportMetric(float64(start.Milliseconds()), "start-ms")
			b.ReportMetric(float64(idle), "idle-rss-kB")
		})
	}
}

// session runs one terminal: start, idle memory, a prompt whose answer
// streams while keys are typed.
func session(b *testing.B, p peer) (lat []time.Duration, start time.Duration, idle int64) {
	srv, err := fakemodel.Listen()
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	answer := streamed()
	srv.Respond(func(_ int, r fakemodel.Request) fakemodel.Reply {
		if strings.Contains(string(r.Body), "stream the answer") {
			return fakemodel.Reply{Blocks: []fakemodel.Block{fakemodel.Text(answer)}, Pace: time.Second * pieceTokens / tokensPerSecond}
		}
		return fakemodel.Say("ok")
	})
	dir := b.TempDir()
	env := agentEnv(b, srv.URL)
	if p.setup != nil {
		p.setup(b, strings.TrimPrefix(env[1], "HOME="), dir)
	}
	t0 := time.Now()
	x := startTerm(b, dir, env, 100, 30, p.argv...)
	x.waitFor("the input", 60*time.Second, func(s string) bool {
		for _, r := range p.ready {
			if strings.Contains(s, r) {
				return true
			}
		}
		return false
	})
	start = time.Since(t0)
	time.Sleep(2 * time.Second) // settled: what an idle session holds
	if idle, err = rss(x.cmd.Process.Pid); err != nil {
		b.Fatal(err)
	}
	x.send("stream the answer\r")
	x.waitFor("the streamed answer", 60*time.Second, func(s string) bool { return strings.Contains(s, "quick brown") })
	base := strings.Count(x.text(), "z")
	for i := 1; i <= keystrokes; i++ {
		t := time.Now()
		x.send("z")
		x.waitFor("the typed key", 10*time.Second, func(s string) bool { return strings.Count(s, "z") >= base+i })
		lat = append(lat, time.Since(t))
		time.Sleep(20 * time.Millisecond) // a fast typist's pace
	}
	x.send("\x03\x03")
	x.cmd.Process.Signal(os.Interrupt)
	return lat, start, idle
}

// claudeHome writes the settings that let Claude Code start straight
// into its input: onboarding done, the folder trusted, no updates.
func claudeHome(tb testing.TB, home, dir string) {
	cfg := map[string]any{
		"hasCompletedOnboarding": true, "autoUpdates": false, "theme": "dark",
		// The key of agentEnv, approved (Claude Code keeps its last 20
		// characters).
		"customApiKeyResponses": map[string]any{"approved": []string{"test-key"}, "rejected": []string{}},
		"projects":              map[string]any{dir: map[string]any{"hasTrustDialogAccepted": true, "hasCompletedProjectOnboarding": true}},
	}
	b, _ := json.Marshal(cfg)
	if err := os.WriteFile(filepath.Join(home, ".claude.json"), b, 0o600); err != nil {
		tb.Fatal(err)
	}
}
