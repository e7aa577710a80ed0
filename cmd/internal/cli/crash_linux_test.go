package cli_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/indusagi/induscode/internal/fakemodel"
)

// crashRunsEnv sets how many runs TestKill9AtRandomMoments kills;
// scripts/crash-transcripts asks for 200.
const crashRunsEnv = "INDUSR_CRASH_RUNS"

// kill -9 of `indusr -p` at random moments of its run (before the first
// request, while tools run, while a transcript line is written): after
// each, every transcript reads whole (`indusr transcripts` names none as
// damaged), and `--continue` resumes the conversation written last. Half
// the killed runs start a new conversation, so "the latest" changes.
func TestKill9AtRandomMoments(t *testing.T) {
	t.Parallel()
	runs := 6
	if s := os.Getenv(crashRunsEnv); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("%s=%q: want a count", crashRunsEnv, s)
		}
		runs = n
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "f.txt"), []byte(strings.Repeat("some text to read\n", 500)), 0o644)
	srv := fakemodel.Start(t)
	// Each prompt gets three turns: ls, read, then an answer.
	srv.Respond(func(_ int, req fakemodel.Request) fakemodel.Reply {
		var body struct {
			Messages []struct {
				Role    string
				Content []struct{ Type, Text, Name string }
			}
		}
		json.Unmarshal(req.Body, &body)
		m := body.Messages
		if len(m) == 0 {
			return fakemodel.Say("no messages")
		}
		last := m[len(m)-1].Content
		for _, b := range last {
			if b.Type == "text" && strings.HasSuffix(b.Text, "?") {
				return fakemodel.Say("checked")
			}
		}
		if len(last) > 0 && last[len(last)-1].Type == "tool_result" && len(m) >= 2 {
			for _, b := range m[len(m)-2].Content {
				if b.Type == "tool_use" && b.Name == "ls" {
					return fakemodel.Call("read", `{"path":"f.txt"}`)
				}
			}
			return fakemodel.Say("done")
		}
		return fakemodel.Call("ls", `{}`)
	})

	// One uninterrupted run measures how long a run takes here.
	start := time.Now()
	if out, err := indusrP(t, dir, srv, "-p", "prompt 0", "--output-format", "json").CombinedOutput(); err != nil {
		t.Fatalf("the first run: %v\n%s", err, out)
	}
	span := time.Since(start)
	latest := listTranscripts(t, dir, srv)[0].ID

	wrote := 0 // killed runs that had saved a turn, or begun a file
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 1))
	for i := 1; i <= runs; i++ {
		before := map[string]int{}
		for _, info := range listTranscripts(t, dir, srv) {
			before[info.ID] = info.Messages
		}
		args := []string{"-p", fmt.Sprintf("prompt %d", i)}
		if i%2 == 0 {
			args = append(args, "--continue")
		}
		cmd := indusrP(t, dir, srv, args...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		at := time.Duration(rng.Int64N(int64(span) * 5 / 4))
		time.Sleep(at)
		cmd.Process.Kill()
		cmd.Wait()

		infos := listTranscripts(t, dir, srv)
		for _, info := range infos {
			if info.Damaged != "" || info.Unsigned {
				t.Fatalf("run %d killed after %v: %s cannot be resumed: %+v", i, at, info.ID, info)
			}
			if n, ok := before[info.ID]; !ok || info.Messages > n {
				latest = info.ID // the killed run wrote it last
				wrote++
			}
		}
		out, err := indusrP(t, dir, srv, "-p", fmt.Sprintf("check %d?", i), "--continue", "--output-format", "json").CombinedOutput()
		if err != nil {
			t.Fatalf("run %d killed after %v: --continue failed: %v\n%s", i, at, err, out)
		}
		var res struct {
			SessionID string `json:"session_id"`
			Result    string `json:"result"`
		}
		if err := json.Unmarshal(out, &res); err != nil || res.Result != "checked" {
			t.Fatalf("run %d: --continue printed %s (%v)", i, out, err)
		}
		if res.SessionID != latest {
			t.Fatalf("run %d killed after %v: --continue resumed %s, want the latest %s", i, at, res.SessionID, latest)
		}
	}
	t.Logf("%d runs killed at random moments within %v (%d of them had saved part of their conversation); every transcript read whole and --continue took the latest each time", runs, span*5/4, wrote)
}
