package bridge

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/indusagi/induscode/bridge/mcpconfig"
	"github.com/indusagi/induscode/internal/childlog"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestFaultServerNeverAnswers(t *testing.T) {
	hang := fake("hang", "-mode", "hang")
	hang.StartupTimeout = time.Second
	start := time.Now()
	f := mount(t, Options{}, hang, fake("ok"))
	took := time.Since(start)
	// The mount waits for the timeout and the teardown (stdin close, TERM
	// ignored, KILL), not longer.
	if took > 6*time.Second {
		t.Errorf("mount took %v with a 1s startup timeout", took)
	}
	st := statusOf(t, f, "hang")
	if st.State != Failed || st.Tools != 0 || !strings.Contains(st.LastError, "within 1s") {
		t.Fatalf("hang status %+v", st)
	}
	wantText(t, call(t, f, "ok__echo", `{"message":"still here"}`), "echo: still here")
	pids := logPIDs(t, st.Log, "mcpfake hang pid")
	if len(pids) != 1 {
		t.Fatalf("pids in log: %v", pids)
	}
	waitGone(t, pids...)
}

func TestFaultServerExitsDuringCall(t *testing.T) {
	f := mount(t, Options{}, fake("crashy"), fake("other"))
	pid := statusOf(t, f, "crashy").PID
	start := time.Now()
	res := call(t, f, "crashy__crash", "")
	wantError(t, res, "went away during the call", "exit status 3", "crashing on purpose", "restarted on the next call")
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("the crash took %v to report", took)
	}
	waitGone(t, pid)
	if st := statusOf(t, f, "crashy"); st.State != Exited || st.Tools != 7 {
		t.Fatalf("after the crash: %+v", st)
	}
	wantText(t, call(t, f, "other__echo", `{"message":"unaffected"}`), "unaffected")

	// The next call restarts the server; its tools stay enrolled once.
	wantText(t, call(t, f, "crashy__echo", `{"message":"back"}`), "echo: back")
	st := statusOf(t, f, "crashy")
	if st.State != Ready || st.Restarts != 1 || st.Tools != 7 || st.PID == pid {
		t.Fatalf("after the restart: %+v (old pid %d)", st, pid)
	}
	if n := len(f.Ledger().Snapshot().Keys()); n != 14 {
		t.Errorf("ledger has %d live tools, want 14", n)
	}
}

func TestRestartBackoff(t *testing.T) {
	t.Parallel()
	f := mount(t, Options{}, fake("flaky"))
	s := f.servers[0]
	wantError(t, call(t, f, "flaky__crash", ""), "went away")
	// Make restarts fail: the command no longer exists.
	s.mu.Lock()
	s.cfg.Command = "/nonexistent/mcpfake"
	s.mu.Unlock()
	wantError(t, call(t, f, "flaky__echo", `{"message":"x"}`), "could not be restarted", "/nonexistent/mcpfake")
	// A second failure waits out its 1s backoff inside the call.
	start := time.Now()
	wantError(t, call(t, f, "flaky__echo", `{"message":"x"}`), "could not be restarted")
	if took := time.Since(start); took < 800*time.Millisecond {
		t.Errorf("the second restart came after %v, before its backoff", took)
	}
	// The third would wait 2s: within the limit. The fourth (4s) fails
	// at once and says when to retry.
	wantError(t, call(t, f, "flaky__echo", `{"message":"x"}`), "could not be restarted")
	start = time.Now()
	wantError(t, call(t, f, "flaky__echo", `{"message":"x"}`), "next restart is allowed in")
	if took := time.Since(start); took > time.Second {
		t.Errorf("a long backoff should fail at once, took %v", took)
	}
	if st := statusOf(t, f, "flaky"); st.State != Failed || st.Tools != 7 {
		t.Errorf("status %+v", st)
	}
}

func TestFaultGarbageOnStdout(t *testing.T) {
	f := mount(t, Options{}, fake("noisy", "-mode", "garbage"), fake("ok"))
	wantText(t, call(t, f, "noisy__echo", `{"message":"through the noise"}`), "through the noise")
	wantText(t, call(t, f, "noisy__noisy", ""), "quiet now")
	wantText(t, call(t, f, "ok__echo", `{"message":"fine"}`), "fine")
	st := statusOf(t, f, "noisy")
	if st.State != Ready || st.DroppedLines < 4 {
		t.Fatalf("status %+v", st)
	}
	waitLog(t, st.Log, "(not JSON-RPC, dropped) Starting server...", time.Second)
	waitLog(t, st.Log, "(not JSON-RPC, dropped) DEBUG: noisy tool was called", time.Second)
}

func TestFaultSchemaWithoutType(t *testing.T) {
	f := mount(t, Options{}, fake("loose", "-mode", "notype"))
	for _, name := range []string{"loose__loose", "loose__bare"} {
		var s map[string]any
		if err := json.Unmarshal(toolNamed(t, f, name).Spec().InputSchema, &s); err != nil || s["type"] != "object" {
			t.Errorf("%s schema %v", name, s)
		}
		if _, ok := s["properties"].(map[string]any); !ok {
			t.Errorf("%s schema has no properties object: %v", name, s)
		}
	}
	if s := toolNamed(t, f, "loose__loose").Spec().OutputSchema; s != nil {
		t.Errorf("an array output schema was grafted: %s", s)
	}
	// The schema keeps what it had.
	if !strings.Contains(string(toolNamed(t, f, "loose__loose").Spec().InputSchema), `"x":{"type":"string"}`) {
		t.Error("normalising lost the properties")
	}
	st := statusOf(t, f, "loose")
	joined := strings.Join(st.Faults, "\n")
	if !strings.Contains(joined, `tool "loose": input schema has no "type"`) || !strings.Contains(joined, `tool "bare": input schema is not a JSON object`) ||
		!strings.Contains(joined, `tool "loose": output schema has type array, not "object"; the tool is grafted without one`) {
		t.Errorf("faults %q", st.Faults)
	}
	wantText(t, call(t, f, "loose__echo", `{"message":"ok"}`), "ok")
}

func TestFaultFloodOfListChanged(t *testing.T) {
	f := mount(t, Options{}, fake("flood", "-mode", "flood", "-flood", "20000"), fake("ok"))
	st := statusOf(t, f, "flood")
	// Calls go through while the flood runs.
	for range 5 {
		wantText(t, call(t, f, "flood__echo", `{"message":"x"}`), "echo: x")
		wantText(t, call(t, f, "ok__echo", `{"message":"y"}`), "echo: y")
	}
	waitLog(t, st.Log, "flood done", 20*time.Second)
	waitRefreshed(t, f, "flood", 20000, 20*time.Second)
	st = statusOf(t, f, "flood")
	// 20,000 notifications coalesce into a handful of listings, and an
	// unchanged tool list writes nothing to the ledger.
	if st.Refreshes < 1 || st.Refreshes > 200 {
		t.Errorf("%d refreshes for 20000 notifications", st.Refreshes)
	}
	if n := f.Ledger().Len(); n != 14 {
		t.Errorf("ledger has %d events after the flood, want the 14 enrollments", n)
	}
	if st.State != Ready || st.Tools != 7 {
		t.Errorf("status %+v", st)
	}
}

func TestCallIdleTimeout(t *testing.T) {
	t.Parallel()
	hang := fake("mute")
	hang.CallTimeout = 300 * time.Millisecond
	f := mount(t, Options{}, hang)
	// A server stalled inside a call (SIGSTOP) sends neither progress nor
	// an answer: the idle timeout ends the call.
	st := statusOf(t, f, "mute")
	s := f.servers[0]
	s.mu.Lock()
	proc := s.link.proc
	s.mu.Unlock()
	stopProcess(t, proc)
	start := time.Now()
	wantError(t, call(t, f, "mute__echo", `{"message":"x"}`), "gave no answer or progress for 300ms", "callTimeout")
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("the idle timeout fired after %v", took)
	}
	continueProcess(t, proc)
	if st.State != Ready {
		t.Errorf("status %+v", st)
	}
}

func TestGrandchildrenAreStopped(t *testing.T) {
	f := mount(t, Options{}, fake("parent", "-mode", "grandchild"))
	st := statusOf(t, f, "parent")
	log := waitLog(t, st.Log, "grandchild ", 2*time.Second)
	pids := logPIDs(t, st.Log, "grandchild")
	if len(pids) != 1 || !alive(pids[0]) {
		t.Fatalf("grandchild pids %v in log:\n%s", pids, log)
	}
	f.Close()
	waitGone(t, st.PID, pids[0])
}

func TestLegacyServerIgnoringDiscover(t *testing.T) {
	t.Parallel()
	// The trap, measured: the SDK's default Connect waits out its deadline.
	client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(t.Context(), 700*time.Millisecond)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: exec.Command(fakeBin, "-mode", "silent")}, nil)
	if err == nil {
		cs.Close()
		t.Log("the SDK no longer probes with server/discover by default; the pin is now only a safeguard")
	}

	silent := fake("legacy", "-mode", "silent")
	silent.StartupTimeout = 5 * time.Second
	start := time.Now()
	f := mount(t, Options{}, silent)
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("mounting a legacy server took %v", took)
	}
	if st := statusOf(t, f, "legacy"); st.State != Ready {
		t.Fatalf("status %+v", st)
	}
	wantText(t, call(t, f, "legacy__echo", `{"message":"old"}`), "echo: old")
}

// Real servers log JSON to stdout: objects without "jsonrpc" and arrays.
// They are dropped to the server's log like banners, and the session goes
// on.
func TestFaultJSONLogsOnStdout(t *testing.T) {
	t.Parallel()
	f := mount(t, Options{}, fake("jsonlog", "-jsonlogs"))
	st := statusOf(t, f, "jsonlog")
	if st.State != Ready || st.Tools != 7 {
		t.Fatalf("status %+v", st)
	}
	for _, msg := range []string{"one", "two"} {
		wantText(t, call(t, f, "jsonlog__echo", `{"message":"`+msg+`"}`), "echo: "+msg)
	}
	// Two lines before each of: initialize, tools/list, two calls.
	if st := statusOf(t, f, "jsonlog"); st.State != Ready || st.DroppedLines < 8 {
		t.Errorf("status %+v, want ready with 8 dropped lines", st)
	}
	waitLog(t, st.Log, `(not JSON-RPC, dropped) {"level":"info"`, time.Second)
	waitLog(t, st.Log, `(not JSON-RPC, dropped) ["log", 1,`, time.Second)
}

// An answer over the frame limit fails its call at once, with the size
// and the limit, instead of leaving it to its timeout; the session and
// other calls go on.
func TestFaultResponseOverFrameLimit(t *testing.T) {
	t.Parallel()
	big := fake("big", "-big")
	// A timeout far beyond what moving the answer takes even under -race
	// on a busy machine, so "at once" and "at its timeout" are told apart.
	big.CallTimeout = 5 * time.Minute
	f := mount(t, Options{}, big)
	const size = 20 << 20
	start := time.Now()
	res := call(t, f, "big__big", fmt.Sprintf(`{"bytes":%d}`, size))
	took := time.Since(start)
	wantError(t, res, "big__big failed", `MCP server "big"`, "over the 16777216-byte limit on one message", "ask for less")
	m := regexp.MustCompile(`the answer was (\d+) bytes`).FindStringSubmatch(res.PlainText())
	if m == nil {
		t.Fatalf("the error does not give the size: %q", res.PlainText())
	}
	if n, _ := strconv.Atoi(m[1]); n < size || n > size+200 {
		t.Errorf("the error gives %d bytes for a %d-byte text", n, size)
	}
	if took > 2*time.Minute {
		t.Errorf("the call failed after %v, not at once: that is its timeout", took)
	}
	// Under the limit is fine, and the session survived.
	wantText(t, call(t, f, "big__big", `{"bytes":1000}`), strings.Repeat("x", 1000))
	wantText(t, call(t, f, "big__echo", `{"message":"after"}`), "echo: after")
	if st := statusOf(t, f, "big"); st.State != Ready || st.Restarts != 0 {
		t.Errorf("status %+v", st)
	}
}

// A stdio server that cannot start says what is missing: its working
// directory, or its command; exec alone reports both as a missing file.
func TestStartFailureNamesTheCause(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		cfg    func() mcpconfig.Server
		want   []string
		unwant string
	}{
		{"cwd missing", func() mcpconfig.Server {
			c := fake("s")
			c.Dir, c.Source, c.Row = filepath.Join(dir, "missing"), "/p/.mcp.json", `mcpServers["s"]`
			return c
		}, []string{"its working directory " + filepath.Join(dir, "missing"), `("cwd" in /p/.mcp.json mcpServers["s"]) does not exist`, "was not run"}, "fork/exec"},
		{"cwd is a file", func() mcpconfig.Server {
			c := fake("s")
			c.Dir = file
			return c
		}, []string{"its working directory " + file, "is not a directory"}, "fork/exec"},
		{"command missing", func() mcpconfig.Server {
			c := fake("s")
			c.Command, c.Dir = filepath.Join(dir, "no-such-server"), dir
			return c
		}, []string{"the command " + filepath.Join(dir, "no-such-server") + " was not found", `correct "command" in test`}, "working directory"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := mount(t, Options{}, tc.cfg())
			st := statusOf(t, f, "s")
			if st.State != Failed {
				t.Fatalf("status %+v", st)
			}
			t.Log(st.LastError)
			for _, w := range tc.want {
				if !strings.Contains(st.LastError, w) {
					t.Errorf("error %q does not say %q", st.LastError, w)
				}
			}
			if strings.Contains(st.LastError, tc.unwant) {
				t.Errorf("error %q mentions %q", st.LastError, tc.unwant)
			}
		})
	}
}

// A stderr line longer than any buffer is logged by its start, and the
// pipe keeps being read: the server, which goes on writing to stderr,
// never blocks on it.
func TestFaultHugeStderrLine(t *testing.T) {
	t.Parallel()
	srv := fake("loud", "-stderrline", strconv.Itoa(maxFrame+1<<20))
	srv.StartupTimeout = 5 * time.Second
	f := mount(t, Options{}, srv)
	st := statusOf(t, f, "loud")
	if st.State != Ready {
		t.Fatalf("status %+v", st)
	}
	wantText(t, call(t, f, "loud__echo", `{"message":"heard"}`), "echo: heard")
	waitLog(t, st.Log, fmt.Sprintf("stderr: %s… (%d more bytes)", strings.Repeat("e", childlog.MaxLine), maxFrame+1<<20-childlog.MaxLine), 5*time.Second)
	waitLog(t, st.Log, "stderr: after the long line 1999 ", 5*time.Second)
}
