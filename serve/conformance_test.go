package serve

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/indusagi/induscode/internal/testpeer"
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
		// which closes its event stream mid-call; without it the scenario
		// ends in warnings only, which the suite does not count as a pass.
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
			_, url := runServeHTTP(t, workspace(t, map[string]string{"README.md": "conformance\n"}), append([]string{"--no-mcp"}, tt.flags...)...)
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
