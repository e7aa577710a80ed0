package serve

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/indusagi/induscode/internal/testpeer"
	"github.com/indusagi/induscode/tool"
)

// The official MCP conformance suite, every server scenario, against
// `indusr serve --http`, in both of its answering modes. Scenarios that
// need the suite's own fixture tools, prompts or resources are listed,
// each with its reason, in testdata/conformance-baseline.yml; the suite
// fails the run on any other failure and on a listed scenario that passes.
func TestConformanceSuite(t *testing.T) {
	t.Parallel()
	suite := testpeer.NPMFile(t, "@modelcontextprotocol/conformance/dist/index.js")
	node22 := testpeer.Node22(t)
	base, err := os.ReadFile("testdata/conformance-baseline.yml")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		mode  string
		flags []string
		extra string // expected failures of this mode only
	}{
		{"json", nil, ""},
		// server-sse-polling calls the fixture tool test_reconnection,
		// which this deck does not have, so its stream is never closed
		// mid-call and the scenario ends in warnings, which the suite does
		// not count as a pass (TestConformanceSSEPolling runs it with the
		// tool and polling on).
		// (With JSON bodies there is no call stream to poll, and the
		// scenario passes with nothing to check.)
		{"sse", []string{"--sse"}, "  - server-sse-polling\n"},
	} {
		t.Run(tt.mode, func(t *testing.T) {
			t.Parallel()
			baseline := filepath.Join(t.TempDir(), "baseline.yml")
			if err := os.WriteFile(baseline, append(slices.Clone(base), tt.extra...), 0o644); err != nil {
				t.Fatal(err)
			}
			// The suite's client sends no headers: the server runs without
			// a token, as on a machine of one user.
			_, url, _ := runServeHTTP(t, workspace(t, map[string]string{"README.md": "conformance\n"}), append([]string{"--no-mcp", "--no-token"}, tt.flags...)...)
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, node22, suite, "server", "--url", url, "--suite", "all", "--expected-failures", baseline)
			cmd.Dir = t.TempDir() // it writes results/ where it runs
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("conformance suite failed (%v):\n%s", err, out)
			}
			t.Logf("conformance suite:\n%s", tail(out, 60))
		})
	}
}

// tail is the last n lines of b.
func tail(b []byte, n int) []byte {
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] == '\n' {
			if n--; n < 0 {
				return b[i+1:]
			}
		}
	}
	return b
}

// The suite's server-sse-polling scenario passes with --sse and polling:
// every call stream starts with a priming event, a call that runs past
// PollAfter has its stream closed with a retry field, and the client that
// reconnects with Last-Event-ID gets the result. The scenario calls a
// fixture tool, test_reconnection, which this server is given here: a
// call that takes a second.
func TestConformanceSSEPolling(t *testing.T) {
	t.Parallel()
	suite := testpeer.NPMFile(t, "@modelcontextprotocol/conformance/dist/index.js")
	node22 := testpeer.Node22(t)
	slow := tool.Must(tool.New(tool.Spec{Name: "test_reconnection", Description: "answers after a second"},
		func(ctx context.Context, _ struct{}, _ *tool.Env) tool.Result {
			select {
			case <-time.After(time.Second):
				return tool.Text("reconnected")
			case <-ctx.Done():
				return tool.Errorf("cancelled")
			}
		}))
	opts := sessionOptions(workspace(t, nil))
	opts.Session.Extra = []tool.Tool{slow}
	url, _ := startHTTP(t, opts, HTTPOptions{EventStreams: true, PollAfter: 200 * time.Millisecond})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node22, suite, "server", "--url", url, "--scenario", "server-sse-polling")
	cmd.Dir = t.TempDir()
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "0 warnings") {
		t.Fatalf("server-sse-polling: %v\n%s", err, out)
	}
}
