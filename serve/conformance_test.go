package serve

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/indusagi/induscode/internal/testpeer"
)

// The official MCP conformance suite, every server scenario, against
// `indusr serve --http`. Scenarios that need the suite's own fixture tools,
// prompts or resources are listed, each with its reason, in
// testdata/conformance-baseline.yml; the suite fails the run on any other
// failure and on a listed scenario that passes.
func TestConformanceSuite(t *testing.T) {
	t.Parallel()
	suite := testpeer.NPMFile(t, "@modelcontextprotocol/conformance/dist/index.js")
	node22 := testpeer.Node22(t)
	baseline, err := filepath.Abs("testdata/conformance-baseline.yml")
	if err != nil {
		t.Fatal(err)
	}
	_, url := runServeHTTP(t, workspace(t, map[string]string{"README.md": "conformance\n"}), "--no-mcp")

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node22, suite, "server", "--url", url, "--suite", "all", "--expected-failures", baseline)
	cmd.Dir = t.TempDir() // it writes results/ where it runs
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("conformance suite failed (%v):\n%s", err, out)
	}
	t.Logf("conformance suite:\n%s", tail(out, 60))
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
