package bridge

import (
	"context"
	"encoding/json"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/indusagi/induscode/tool"
)

func TestFakeServerBasics(t *testing.T) {
	f := mount(t, Options{}, fake("fake"))
	st := statusOf(t, f, "fake")
	if st.State != Ready || st.Tools != 7 || st.PID == 0 || st.LastError != "" {
		t.Fatalf("status %+v", st)
	}
	names := f.ToolNames()
	if !slices.Equal(names, []string{"fake__echo", "fake__args", "fake__crash", "fake__slow", "fake__noisy", "fake__blocks", "fake__fail"}) {
		t.Fatalf("tool names %v", names)
	}
	wantText(t, call(t, f, "fake__echo", `{"message":"hi"}`), "echo: hi")

	// Empty and null input reach the server as {}, never null.
	for _, in := range []string{"", "null", " {} "} {
		res := call(t, f, "fake__args", in)
		if res.IsError || strings.TrimSpace(res.PlainText()) != "{}" {
			t.Errorf("input %q arrived as %q", in, res.PlainText())
		}
	}
	wantError(t, call(t, f, "fake__args", `[1]`), "must be a JSON object")

	// Content blocks and isError are kept.
	res := call(t, f, "fake__blocks", "")
	kinds := []tool.Kind{}
	for _, b := range res.Blocks {
		kinds = append(kinds, b.Kind)
	}
	if !slices.Equal(kinds, []tool.Kind{tool.KindText, tool.KindImage, tool.KindResource, tool.KindJSON}) {
		t.Fatalf("block kinds %v", kinds)
	}
	if res.Blocks[1].MIME != "image/png" || len(res.Blocks[1].Data) == 0 {
		t.Errorf("image block %+v", res.Blocks[1])
	}
	if r := res.Blocks[2]; r.URI != "file:///a.txt" || r.Text != "contents" {
		t.Errorf("resource block %+v", r)
	}
	if !strings.Contains(string(res.Blocks[3].JSON), `"resource_link"`) {
		t.Errorf("resource link block %s", res.Blocks[3].JSON)
	}
	wantError(t, call(t, f, "fake__fail", ""), "it failed on purpose")

	// The grafted spec: qualified name, object schema, not read-only.
	spec := toolNamed(t, f, "fake__echo").Spec()
	if spec.Label != "echo" || spec.ReadOnly || !strings.Contains(string(spec.InputSchema), `"type":"object"`) {
		t.Errorf("spec %+v", spec)
	}
	if c := f.ToolCounts(); len(c) != 1 || c[0].Count != 7 {
		t.Errorf("counts %v", c)
	}

	pid := st.PID
	kept := toolNamed(t, f, "fake__echo")
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	waitGone(t, pid)
	if len(f.Tools()) != 0 || len(f.Status()) != 0 {
		t.Error("a closed fleet still has tools or servers")
	}
	// A tool kept from before Close explains itself.
	wantError(t, kept.Run(t.Context(), nil, nil), "no longer offered")
}

func TestMountNothing(t *testing.T) {
	t.Parallel()
	f := Mount(t.Context(), nil, Options{})
	if len(f.Tools()) != 0 || len(f.Status()) != 0 {
		t.Error("an empty mount has tools")
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

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
	// The schema keeps what it had.
	if !strings.Contains(string(toolNamed(t, f, "loose__loose").Spec().InputSchema), `"x":{"type":"string"}`) {
		t.Error("normalising lost the properties")
	}
	st := statusOf(t, f, "loose")
	joined := strings.Join(st.Faults, "\n")
	if !strings.Contains(joined, `tool "loose": input schema has no "type"`) || !strings.Contains(joined, `tool "bare": input schema is not a JSON object`) {
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
	time.Sleep(3 * refreshCoalesce)
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

func TestCallTimeouts(t *testing.T) {
	t.Parallel()
	slow := fake("slow")
	slow.CallTimeout = 400 * time.Millisecond
	f := mount(t, Options{MaxCallTimeout: 1500 * time.Millisecond}, slow)
	logFile := statusOf(t, f, "slow").Log

	// Progress every 100 ms keeps a 1 s call alive past its 400 ms
	// timeout, and reaches the caller.
	var mu sync.Mutex
	var seen []float64
	ctx := tool.WithProgress(t.Context(), func(done, total float64, msg string) {
		mu.Lock()
		seen = append(seen, done)
		mu.Unlock()
	})
	wantText(t, callCtx(ctx, t, f, "slow__slow", `{"seconds":1}`), "slept 1s")
	mu.Lock()
	if len(seen) < 5 {
		t.Errorf("saw %d progress reports, want about 10", len(seen))
	}
	mu.Unlock()

	// But not past the absolute maximum.
	start := time.Now()
	wantError(t, call(t, f, "slow__slow", `{"seconds":5}`), "1.5s maximum", "cancelled on the server")
	if took := time.Since(start); took > 3500*time.Millisecond {
		t.Errorf("the maximum stopped the call after %v", took)
	}
	waitLog(t, logFile, "stopped call", 2*time.Second)
	// The session survives a timeout.
	wantText(t, call(t, f, "slow__echo", `{"message":"alive"}`), "alive")
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
	if took := time.Since(start); took > 1500*time.Millisecond {
		t.Errorf("the idle timeout fired after %v", took)
	}
	continueProcess(t, proc)
	if st.State != Ready {
		t.Errorf("status %+v", st)
	}
}

func TestCancellation(t *testing.T) {
	t.Parallel()
	f := mount(t, Options{}, fake("slow"))
	logFile := statusOf(t, f, "slow").Log
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(300*time.Millisecond, cancel)
	start := time.Now()
	wantError(t, callCtx(ctx, t, f, "slow__slow", `{"seconds":10}`), "cancelled", "told to stop")
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("cancellation took %v", took)
	}
	// The cancel notification reached the server, which stopped.
	waitLog(t, logFile, "stopped call", 2*time.Second)
	wantText(t, call(t, f, "slow__echo", `{"message":"next"}`), "next")
}

func TestNameCollisions(t *testing.T) {
	t.Parallel()
	f := mount(t, Options{}, fake("c", "-mode", "collide"))
	if got := f.ToolNames(); !slices.Contains(got, "c__a_b") || len(got) != 8 {
		t.Fatalf("names %v", got)
	}
	st := statusOf(t, f, "c")
	if !strings.Contains(strings.Join(st.Faults, "\n"), `tools "a.b" and "a_b" both become "c__a_b"`) {
		t.Errorf("faults %q", st.Faults)
	}
	// The one grafted is the first listed, and calls reach it by its
	// original name (the fake answers "unknown tool a.b").
	wantError(t, call(t, f, "c__a_b", ""), "unknown tool a.b")
}

func TestPagination(t *testing.T) {
	t.Parallel()
	f := mount(t, Options{}, fake("paged", "-mode", "pages", "-tools", "5"), fake("endless", "-mode", "endless-pages"))
	if st := statusOf(t, f, "paged"); st.Tools != 12 || len(st.Faults) != 0 {
		t.Errorf("paged status %+v", st)
	}
	st := statusOf(t, f, "endless")
	if st.State != Ready || st.Tools != 7+maxToolPages-1 || !strings.Contains(strings.Join(st.Faults, "\n"), "still paging") {
		t.Errorf("endless status %+v", st)
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

func TestDetachAndAttach(t *testing.T) {
	t.Parallel()
	f := mount(t, Options{}, fake("a"), fake("b"))
	echoA := toolNamed(t, f, "a__echo")
	pidA := statusOf(t, f, "a").PID
	f.Detach("a")
	waitGone(t, pidA)
	if got := f.ToolCounts(); len(got) != 1 || got[0].Server != "b" {
		t.Fatalf("counts after detach %v", got)
	}
	wantError(t, echoA.Run(t.Context(), json.RawMessage(`{"message":"x"}`), nil), "no longer offered")
	wantText(t, call(t, f, "b__echo", `{"message":"b"}`), "echo: b")
	if st := f.Attach(t.Context(), fake("b")); len(st) != 1 || st[0].State != Failed || !strings.Contains(st[0].LastError, "already attached") {
		t.Errorf("attaching a duplicate: %+v", st)
	}
	st := f.Attach(t.Context(), fake("a"))
	if len(st) != 1 || st[0].State != Ready {
		t.Fatalf("re-attach: %+v", st)
	}
	wantText(t, echoA.Run(t.Context(), json.RawMessage(`{"message":"again"}`), nil), "echo: again")
	if got := f.ToolNames(); got[0] != "b__echo" || got[7] != "a__echo" {
		t.Errorf("order after re-attach %v", got)
	}
}

func TestCardView(t *testing.T) {
	t.Parallel()
	f := mount(t, Options{}, fake("k"))
	tl := toolNamed(t, f, "k__echo")
	c := Card(tl)
	if c.ID != "k__echo" || c.Title != "echo" || c.Summary != "Echo the message." || len(c.Profiles) != 0 {
		t.Errorf("card %+v", c)
	}
	if c.Build(deckContext()) != tl {
		t.Error("the card does not build the live tool")
	}
}

func TestStatesHandled(t *testing.T) {
	t.Parallel()
	for _, s := range States {
		if strings.HasPrefix(s.String(), "State(") {
			t.Errorf("state %d has no name", s)
		}
	}
	for _, tr := range Transports {
		if strings.HasPrefix(tr.String(), "Transport(") {
			t.Errorf("transport %d has no name", tr)
		}
		switch tr {
		case Stdio, SSE, StreamableHTTP:
		default:
			t.Errorf("transport %s is not handled by dial", tr)
		}
	}
}

// A legacy server that ignores requests it does not know never answers the
// SDK's server/discover probe: an unpinned Connect hangs until its deadline.
// The bridge pins the protocol version and mounts it at once.
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
