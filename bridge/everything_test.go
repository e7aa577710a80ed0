package bridge

import (
	"context"
	"encoding/json"
	"maps"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/indusagi/induscode/bridge/mcpconfig"
	"github.com/indusagi/induscode/internal/testpeer"
	"github.com/indusagi/induscode/tool"
)

// The reference server from npm, grafted over each transport.

func everythingStdio(t testing.TB) mcpconfig.Server {
	t.Helper()
	if everything == "" {
		testpeer.Missing(t, "server-everything", "run scripts/test (it runs npm ci in testdata/npm)")
	}
	return mcpconfig.Server{Name: "everything", Transport: mcpconfig.Stdio, Command: "node", Args: []string{everything, "stdio"}}
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
	f := mount(t, Options{}, mcpconfig.Server{Name: "everything", Transport: mcpconfig.SSE, URL: base + "/sse",
		Headers: []mcpconfig.Pair{{Name: "X-Test", Value: "1"}}})
	exerciseEverything(t, f)
}

func TestEverythingStreamableHTTP(t *testing.T) {
	t.Parallel()
	base := startNode(t, "streamableHttp")
	f := mount(t, Options{}, mcpconfig.Server{Name: "everything", Transport: mcpconfig.StreamableHTTP, URL: base + "/mcp"})
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
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("cancellation took %v", took)
	}
	wantText(t, call(t, f, "everything__echo", `{"message":"after cancel"}`), "Echo: after cancel")
}

// A url row without a "type", as Claude Code and Cursor users write it,
// reaches server-everything in either HTTP mode: Streamable HTTP first,
// then SSE when the POST is refused with 400, 404 or 405.
func TestTransportDetection(t *testing.T) {
	t.Parallel()
	streamable := startNode(t, "streamableHttp")
	sse := startNode(t, "sse")
	cases := []struct {
		name    string
		url     string
		want    mcpconfig.Transport
		errWant []string // for a server that cannot connect
	}{
		{name: "streamable HTTP server", url: streamable + "/mcp", want: mcpconfig.StreamableHTTP},
		{name: "SSE-only server", url: sse + "/sse", want: mcpconfig.SSE},
		{name: "nothing at the url", url: sse + "/nowhere",
			errWant: []string{"both transports were tried", "Streamable HTTP, whose POST was answered 404 Not Found", "then SSE, where", `set "type"`}},
		{name: "nothing listening", url: "http://127.0.0.1:1/mcp",
			errWant: []string{"over Streamable HTTP (tried first", "SSE was not tried, as no HTTP answer came back"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			servers, warnings := mcpconfig.Parse([]byte(`{"mcpServers":{"everything":{"url":"`+tc.url+`"}}}`), "mcp.json", nil)
			if len(servers) != 1 || len(warnings) != 0 {
				t.Fatalf("config: %+v %v", servers, warnings)
			}
			f := mount(t, Options{}, servers...)
			st := statusOf(t, f, "everything")
			if !st.TransportDetected {
				t.Errorf("status %+v does not say the transport was detected", st)
			}
			if tc.errWant != nil {
				if st.State != Failed {
					t.Fatalf("status %+v, want failed", st)
				}
				t.Log(st.LastError)
				for _, w := range tc.errWant {
					if !strings.Contains(st.LastError, w) {
						t.Errorf("error %q does not say %q", st.LastError, w)
					}
				}
				return
			}
			if st.Transport != tc.want {
				t.Errorf("connected over %s, want %s", st.Transport, tc.want)
			}
			exerciseEverything(t, f)
		})
	}
}

// server-everything's get-structured-content declares an output schema
// and answers with structured content beside its text: both survive the
// graft.
func TestEverythingStructuredContent(t *testing.T) {
	t.Parallel()
	f := mount(t, Options{}, everythingStdio(t))
	spec := toolNamed(t, f, "everything__get-structured-content").Spec()
	var schema struct {
		Type       string                     `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(spec.OutputSchema, &schema); err != nil || schema.Type != "object" {
		t.Fatalf("output schema %s (%v)", spec.OutputSchema, err)
	}
	for _, p := range []string{"temperature", "conditions", "humidity"} {
		if _, ok := schema.Properties[p]; !ok {
			t.Errorf("output schema %s lacks %q", spec.OutputSchema, p)
		}
	}
	if s := toolNamed(t, f, "everything__echo").Spec(); s.OutputSchema != nil {
		t.Errorf("echo has no output schema, got %s", s.OutputSchema)
	}

	res := call(t, f, "everything__get-structured-content", `{"location":"Chicago"}`)
	if res.IsError || len(res.Blocks) != 2 || res.Blocks[0].Kind != tool.KindText || res.Blocks[1].Kind != tool.KindJSON {
		t.Fatalf("result %+v, want a text block then a JSON block", res)
	}
	var weather map[string]any
	if err := json.Unmarshal(res.Blocks[1].JSON, &weather); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"temperature": 36.0, "conditions": "Light rain / drizzle", "humidity": 82.0}
	if !maps.Equal(weather, want) {
		t.Errorf("structured content %v, want %v", weather, want)
	}
	// As `indusr call --json` prints it.
	b, err := json.Marshal(res.Blocks[1])
	if err != nil || !strings.Contains(string(b), `"type":"json","json":{"conditions":"Light rain / drizzle"`) {
		t.Errorf("JSON form %s (%v)", b, err)
	}
}
