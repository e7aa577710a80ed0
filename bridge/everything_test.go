package bridge

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/indusagi/induscode/internal/testpeer"
	"github.com/indusagi/induscode/tool"
)

// The reference server from npm, grafted over each transport.

func everythingStdio(t testing.TB) ServerConfig {
	t.Helper()
	if everything == "" {
		testpeer.Missing(t, "server-everything", "run scripts/test (it runs npm ci in testdata/npm)")
	}
	return ServerConfig{Name: "everything", Transport: Stdio, Command: "node", Args: []string{everything, "stdio"}}
}

func TestEverythingStdio(t *testing.T) {
	t.Parallel()
	f := mount(t, Options{}, everythingStdio(t))
	pid := statusOf(t, f, "everything").PID
	exerciseEverything(t, f)
	f.Close()
	waitGone(t, pid)
}

func TestEverythingSSE(t *testing.T) {
	t.Parallel()
	base := startNode(t, "sse")
	f := mount(t, Options{}, ServerConfig{Name: "everything", Transport: SSE, URL: base + "/sse",
		Headers: []Pair{{"X-Test", "1"}}})
	exerciseEverything(t, f)
}

func TestEverythingStreamableHTTP(t *testing.T) {
	t.Parallel()
	base := startNode(t, "streamableHttp")
	f := mount(t, Options{}, ServerConfig{Name: "everything", Transport: StreamableHTTP, URL: base + "/mcp"})
	exerciseEverything(t, f)
}

func exerciseEverything(t *testing.T, f *Fleet) {
	t.Helper()
	st := statusOf(t, f, "everything")
	if st.State != Ready || st.Tools < 10 {
		t.Fatalf("status %+v", st)
	}
	wantText(t, call(t, f, "everything__echo", `{"message":"hello bridge"}`), "Echo: hello bridge")
	wantText(t, call(t, f, "everything__get-sum", `{"a":2,"b":40}`), "The sum of 2 and 40 is 42.")
	// An invalid call is the server's isError result, passed through.
	wantError(t, call(t, f, "everything__get-sum", `{"a":"two"}`))

	// Progress reaches the caller.
	var reports atomic.Int32
	ctx := tool.WithProgress(t.Context(), func(done, total float64, _ string) {
		if total == 4 && done >= 1 && done <= 4 {
			reports.Add(1)
		}
	})
	wantText(t, callCtx(ctx, t, f, "everything__trigger-long-running-operation", `{"duration":1,"steps":4}`),
		"Long running operation completed. Duration: 1 seconds, Steps: 4.")
	if n := reports.Load(); n < 2 {
		t.Errorf("saw %d progress reports of 4", n)
	}

	// Cancellation ends a 20 s operation at once, and the server goes on.
	cctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(500*time.Millisecond, cancel)
	start := time.Now()
	wantError(t, callCtx(cctx, t, f, "everything__trigger-long-running-operation", `{"duration":20,"steps":20}`), "cancelled")
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("cancellation took %v", took)
	}
	wantText(t, call(t, f, "everything__echo", `{"message":"after cancel"}`), "Echo: after cancel")
}
