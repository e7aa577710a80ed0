package bridge

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/indusagi/induscode/bridge/ledger"
	"github.com/indusagi/induscode/bridge/mcpconfig"
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

func TestCallTimeouts(t *testing.T) {
	t.Parallel()
	slow := fake("slow")
	// The idle timeout is 5 s, fifty progress intervals: the suite runs
	// beside a CPU hog under the race detector, where the reports of a
	// starved process can pause for seconds.
	slow.CallTimeout = 5 * time.Second
	// The maximum leaves 4 s of room over the 8 s call for the same reason.
	f := mount(t, Options{MaxCallTimeout: 12 * time.Second}, slow)
	logFile := statusOf(t, f, "slow").Log

	// Progress every 100 ms keeps an 8 s call alive past its 5 s timeout,
	// and reaches the caller.
	var mu sync.Mutex
	var seen []float64
	ctx := tool.WithProgress(t.Context(), func(done, total float64, msg string) {
		mu.Lock()
		seen = append(seen, done)
		mu.Unlock()
	})
	wantText(t, callCtx(ctx, t, f, "slow__slow", `{"seconds":8}`), "slept 8s")
	mu.Lock()
	if len(seen) < 40 {
		t.Errorf("saw %d progress reports, want about 80", len(seen))
	}
	mu.Unlock()

	// But not past the absolute maximum.
	start := time.Now()
	wantError(t, call(t, f, "slow__slow", `{"seconds":30}`), "12s maximum", "cancelled on the server")
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("the maximum stopped the call after %v", took)
	}
	waitLog(t, logFile, "stopped call", 2*time.Second)
	// The session survives a timeout.
	wantText(t, call(t, f, "slow__echo", `{"message":"alive"}`), "alive")
}

func TestCancellation(t *testing.T) {
	t.Parallel()
	f := mount(t, Options{}, fake("slow"))
	logFile := statusOf(t, f, "slow").Log
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(300*time.Millisecond, cancel)
	start := time.Now()
	wantError(t, callCtx(ctx, t, f, "slow__slow", `{"seconds":10}`), "cancelled", "told to stop")
	if took := time.Since(start); took > 5*time.Second {
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

// TestGraftedSpecsAreCopies: one fleet serves every session of a serve
// process, so a caller that changes the schema of a grafted tool's spec
// must not change what the others see.
func TestGraftedSpecsAreCopies(t *testing.T) {
	t.Parallel()
	f := mount(t, Options{}, fake("k"))
	tl := toolNamed(t, f, "k__echo")
	want := string(tl.Spec().InputSchema)
	s := tl.Spec()
	for i := range s.InputSchema {
		s.InputSchema[i] = '!'
	}
	if got := string(toolNamed(t, f, "k__echo").Spec().InputSchema); got != want {
		t.Errorf("schema after a caller changed its copy: %.40q…, want %.40q…", got, want)
	}
}

func TestStatesHandled(t *testing.T) {
	t.Parallel()
	if len(States()) != int(stateEnd)-1 {
		t.Errorf("States() lists %d of %d states", len(States()), stateEnd-1)
	}
	for s := Connecting; s < stateEnd; s++ {
		if !slices.Contains(States(), s) {
			t.Errorf("state %d is missing from States()", s)
		}
		if strings.HasPrefix(s.String(), "State(") {
			t.Errorf("state %d has no name", s)
		}
	}
	for _, tr := range mcpconfig.Transports() {
		switch tr {
		case mcpconfig.Stdio, mcpconfig.SSE, mcpconfig.StreamableHTTP:
		default:
			t.Errorf("transport %s is not handled by dial", tr)
		}
	}
}

// A legacy server that ignores requests it does not know never answers the
// SDK's server/discover probe: an unpinned Connect hangs until its deadline.
// The bridge pins the protocol version and mounts it at once.
// tools/list_changed re-reads the server's tools: the ledger retires the
// tool that left and enrolls the one that came, and routing follows.
func TestToolListChanged(t *testing.T) {
	t.Parallel()
	f := mount(t, Options{}, fake("ch", "-mode", "changing"))
	fail := toolNamed(t, f, "ch__fail")
	before := f.Ledger().Len()
	deadline := time.Now().Add(5 * time.Second)
	for !slices.Contains(f.ToolNames(), "ch__fresh") {
		if time.Now().After(deadline) {
			t.Fatalf("the new tool never appeared: %v", f.ToolNames())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if slices.Contains(f.ToolNames(), "ch__fail") {
		t.Error("the removed tool is still live")
	}
	events := f.Ledger().Since(before)
	if len(events) != 2 || events[0].Op != ledger.Retire || events[1].Op != ledger.Enroll || events[1].Capability.Spec().Name != "ch__fresh" {
		t.Fatalf("refresh events %+v", events)
	}
	wantText(t, call(t, f, "ch__fresh", ""), "fresh tool")
	wantError(t, fail.Run(t.Context(), nil, nil), "no longer offered")
	if st := statusOf(t, f, "ch"); st.Refreshes != 1 || st.Tools != 7 {
		t.Errorf("status %+v", st)
	}
}
