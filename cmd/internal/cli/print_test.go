package cli_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/indusagi/induscode/internal/fakemodel"
	"github.com/indusagi/induscode/transcript"
)

// indusrP runs indusr (this test binary, see TestMain) against the fake
// model server.
func indusrP(t *testing.T, dir string, srv *fakemodel.Server, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("indusr", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(),
		"XDG_CONFIG_HOME="+filepath.Join(dir, ".xdg"),
		"ANTHROPIC_API_KEY=test", "ANTHROPIC_BASE_URL="+srv.URL,
		"OPENAI_API_KEY=test", "OPENAI_BASE_URL="+srv.URL+"/v1",
		"GEMINI_API_KEY=test", "GOOGLE_GEMINI_BASE_URL="+srv.URL)
	return cmd
}

// listTranscripts is `indusr transcripts --json` in dir, run as the -p
// runs were: with the same config folder, so the same signing key.
func listTranscripts(t *testing.T, dir string, srv *fakemodel.Server) []transcript.Info {
	t.Helper()
	out, err := indusrP(t, dir, srv, "transcripts", "--json").Output()
	if err != nil {
		t.Fatalf("indusr transcripts: %v\n%s", err, out)
	}
	var infos []transcript.Info
	if err := json.Unmarshal(out, &infos); err != nil {
		t.Fatalf("indusr transcripts --json: %v\n%s", err, out)
	}
	return infos
}

// A multi-turn edit task (read, edit, bash, answer) through -p against
// every API (Messages, Responses, Chat Completions, Gemini's); stream-json
// lines carry Claude Code's shapes, and the run's cost is counted from
// each turn's usage at the catalog's price.
func TestPrintEditTaskStreamJSON(t *testing.T) {
	for _, model := range []string{"anthropic/claude-sonnet-4-5", "openai/gpt-5", "openai-chat/gpt-5", "gemini/gemini-2.5-flash"} {
		t.Run(model, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "add.sh"), []byte("echo $((1+1))\n"), 0o644)
			srv := fakemodel.Start(t,
				fakemodel.Call("read", `{"path":"add.sh"}`),
				fakemodel.Call("edit", `{"path":"add.sh","old_string":"1+1","new_string":"2+2"}`),
				fakemodel.Call("bash", `{"command":"bash add.sh"}`),
				fakemodel.Say("add.sh now prints 4."))
			cmd := indusrP(t, dir, srv, "-p", "make add.sh print 4", "--model", model, "--output-format", "stream-json", "--verbose",
				"--allowed-tools", "Edit,Bash(bash add.sh)")
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			var kinds []string
			var result map[string]any
			for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
				var m map[string]any
				if err := json.Unmarshal([]byte(line), &m); err != nil {
					t.Fatalf("line %q: %v", line, err)
				}
				kind := fmt.Sprint(m["type"])
				if st, ok := m["subtype"]; ok && kind == "system" {
					kind += "/" + fmt.Sprint(st)
				}
				kinds = append(kinds, kind)
				if m["session_id"] == "" || m["session_id"] == nil {
					t.Errorf("no session_id: %s", line)
				}
				if kind == "result" {
					result = m
				}
			}
			want := "system/init assistant user assistant user assistant user assistant result"
			if strings.Join(kinds, " ") != want {
				t.Errorf("messages %v, want %s", kinds, want)
			}
			for _, k := range []string{"subtype", "is_error", "num_turns", "duration_ms", "total_cost_usd", "usage", "session_id", "result"} {
				if _, ok := result[k]; !ok {
					t.Errorf("result lacks %s: %v", k, result)
				}
			}
			if result["subtype"] != "success" || result["is_error"] != false || result["num_turns"] != float64(4) || result["result"] != "add.sh now prints 4." {
				t.Errorf("result %v", result)
			}
			// Four turns of the fake's default usage (42 in, 17 out).
			if cost, _ := result["total_cost_usd"].(float64); cost <= 0 {
				t.Errorf("no cost counted for a priced model: %v", result["total_cost_usd"])
			}
			if !strings.Contains(string(srv.Requests()[3].Body), "4") {
				t.Errorf("bash output missing from the last request")
			}
			if b, _ := os.ReadFile(filepath.Join(dir, "add.sh")); string(b) != "echo $((2+2))\n" {
				t.Errorf("add.sh is %q", b)
			}
		})
	}
}

func TestPrintJSONIsOneObjectAndErrorsExit1(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	srv := fakemodel.Start(t, fakemodel.Reply{Status: 400, Blocks: []fakemodel.Block{fakemodel.Text("prompt is too long")}})
	cmd := indusrP(t, dir, srv, "-p", "--output-format", "json", "--no-tools")
	cmd.Stdin = strings.NewReader("hello from stdin")
	out, err := cmd.Output()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("exit %v\n%s", err, out)
	}
	var m map[string]any
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatalf("not one JSON object: %v\n%s", err, out)
	}
	// An error result says what went wrong in errors, as Claude Code's
	// do (the Agent SDK reads them), and has no result.
	errs, _ := m["errors"].([]any)
	_, hasResult := m["result"]
	if m["is_error"] != true || m["subtype"] != "error_during_execution" || len(errs) != 1 ||
		!strings.Contains(fmt.Sprint(errs[0]), "prompt is too long") || hasResult || m["terminal_reason"] != "api_error" {
		t.Errorf("result %v", m)
	}
	if !strings.Contains(string(srv.Requests()[0].Body), "hello from stdin") {
		t.Errorf("the prompt from stdin was not sent")
	}
}

// kill -9 of indusr mid-turn: the transcript is whole up to the last
// finished turn, and --resume carries on from it.
func TestResumeAfterKill9MidTurn(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	hold := make(chan struct{})
	defer close(hold)
	srv := fakemodel.Start(t,
		fakemodel.Call("ls", `{}`),
		fakemodel.Reply{Blocks: []fakemodel.Block{fakemodel.Text("still thinking"), fakemodel.Text("never")}, Hold: hold},
		fakemodel.Say("resumed fine"))
	cmd := indusrP(t, dir, srv, "-p", "list the files")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-srv.Arrived(2):
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		t.Fatal("the second model call never came")
	}
	cmd.Process.Kill()
	cmd.Wait()
	infos := listTranscripts(t, dir, srv)
	if len(infos) != 1 || infos[0].Damaged != "" {
		t.Fatalf("%+v", infos)
	}
	if infos[0].Messages != 3 {
		t.Errorf("the transcript holds %d messages, want the finished turn's 3", infos[0].Messages)
	}
	out, err := indusrP(t, dir, srv, "-p", "--resume", infos[0].ID, "go on").CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "resumed fine" {
		t.Fatalf("%v\n%s", err, out)
	}
	body := string(srv.Requests()[2].Body)
	if !strings.Contains(body, "list the files") || !strings.Contains(body, "go on") {
		t.Errorf("the resumed call lacks the conversation: %s", body)
	}
}

// The time from starting `indusr -p` to its first model request, with no
// MCP server (target 30 ms):
//
//	go test -run '^$' -bench FirstRequest -benchtime 30x -count 3 ./cmd/internal/cli/
//
// It times the indusr that users run, built here from cmd/indusr with
// cmd/indusr-agent beside it (indusr execs it for -p; the exec is timed
// too): this package's test binary, which the other tests run as indusr,
// links the test packages too and starts slower. INDUSR_BENCH_BINS
// ("name=/path/to/indusr,other=/path/…") times those builds instead, in
// turn within each iteration so that load falls on all of them
// (scripts/bench-startup).
func BenchmarkPrintFirstRequest(b *testing.B) {
	srv, _ := fakemodel.Listen()
	defer srv.Close()
	srv.Respond(func(int, fakemodel.Request) fakemodel.Reply { return fakemodel.Say("ok") })
	dir := b.TempDir()
	type build struct{ name, path string }
	var builds []build
	if spec := os.Getenv("INDUSR_BENCH_BINS"); spec != "" {
		for item := range strings.SplitSeq(spec, ",") {
			name, path, ok := strings.Cut(item, "=")
			if !ok {
				b.Fatalf("INDUSR_BENCH_BINS: %q is not name=path", item)
			}
			builds = append(builds, build{name, path})
		}
	} else {
		bins := b.TempDir()
		if out, err := exec.Command("go", "build", "-o", bins, "../../indusr", "../../indusr-agent").CombinedOutput(); err != nil {
			b.Fatalf("building indusr and indusr-agent: %v\n%s", err, out)
		}
		builds = []build{{"", filepath.Join(bins, "indusr")}}
	}
	total := make([]time.Duration, len(builds))
	requests := 0
	for i := 0; i < b.N; i++ {
		for k := range builds {
			j := (i + k) % len(builds) // each build goes first in turn
			cmd := exec.Command(builds[j].path, "-C", dir, "--no-mcp", "-p", "hi")
			cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+dir+"/.xdg", "ANTHROPIC_API_KEY=k", "ANTHROPIC_BASE_URL="+srv.URL)
			requests++
			arrived := srv.Arrived(requests)
			start := time.Now()
			if err := cmd.Start(); err != nil {
				b.Fatal(err)
			}
			select {
			case <-arrived:
			case <-time.After(30 * time.Second):
				cmd.Process.Kill()
				b.Fatalf("%s: no request within 30 s", builds[j].path)
			}
			total[j] += time.Since(start)
			if err := cmd.Wait(); err != nil {
				b.Fatal(err)
			}
		}
	}
	for j, bd := range builds {
		unit := "ms-to-first-request"
		if bd.name != "" {
			unit = bd.name + "-ms-to-first-request"
		}
		b.ReportMetric(float64(total[j].Microseconds())/1000/float64(b.N), unit)
	}
}

// openai/ speaks the Responses API unless the settings' openaiApi says
// chat (a proxy that speaks only Chat Completions); a value that is
// neither is refused, naming the file.
func TestPrintOpenAIAPISetting(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	srv := fakemodel.Start(t, fakemodel.Say("by responses"), fakemodel.Say("by chat"))
	run := func() (string, error) {
		out, err := indusrP(t, dir, srv, "-p", "hi", "--model", "openai/gpt-5", "--no-tools").Output()
		return strings.TrimSpace(string(out)), err
	}
	if out, err := run(); err != nil || out != "by responses" {
		t.Fatalf("%q %v", out, err)
	}
	os.MkdirAll(filepath.Join(dir, ".indusvx"), 0o755)
	os.WriteFile(filepath.Join(dir, ".indusvx", "settings.json"), []byte(`{"openaiApi":"chat"}`), 0o644)
	if out, err := run(); err != nil || out != "by chat" {
		t.Fatalf("%q %v", out, err)
	}
	if reqs := srv.Requests(); len(reqs) != 2 || reqs[0].API != "responses" || reqs[1].API != "openai" {
		t.Errorf("requests went to %v", reqs)
	}
	os.WriteFile(filepath.Join(dir, ".indusvx", "settings.json"), []byte(`{"openaiApi":"completions"}`), 0o644)
	cmd := indusrP(t, dir, srv, "-p", "hi", "--model", "openai/gpt-5", "--no-tools")
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), `openaiApi "completions" is none of responses or chat`) {
		t.Errorf("a bad setting: %v\n%s", err, out)
	}
}

// stream-json without --verbose is refused as Claude Code refuses it, in
// its words and with its exit status, before any model call.
func TestStreamJSONNeedsVerbose(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	srv := fakemodel.Start(t)
	cmd := indusrP(t, dir, srv, "-p", "hi", "--output-format", "stream-json")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 || len(out) != 0 ||
		!strings.Contains(stderr.String(), "When using --print, --output-format=stream-json requires --verbose") {
		t.Errorf("exit %v, stdout %q, stderr %q", err, out, stderr.String())
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d model calls", n)
	}
}

// -v and --version answer X.Y.Z (indusr), which the Agent SDK for Python
// reads.
func TestVersionFlag(t *testing.T) {
	t.Parallel()
	for _, flag := range []string{"-v", "--version"} {
		out, err := indusrP(t, t.TempDir(), fakemodel.Start(t), flag).Output()
		if err != nil || !regexp.MustCompile(`^\d+\.\d+\.\d+ \(indusr\)\n$`).Match(out) {
			t.Errorf("indusr %s: %q %v", flag, out, err)
		}
	}
}
