package serve

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/indusagi/induscode/internal/jail"
	"github.com/indusagi/induscode/internal/jail/jailtest"
)

// The escape suite through indusr serve: a real MCP client over stdio
// calls bash in each mode, and nothing gets out. In workspace-write the
// same session also shows the other half: a write outside fails with the
// sandbox's note, one inside the workspace works.
func TestEscapeSuiteThroughServe(t *testing.T) {
	if r := jail.Probe(); r.ABI < 1 {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the sandbox tests need Landlock: %v", r.Err)
		}
		t.Skipf("no Landlock here: %v", r.Err)
	}
	t.Parallel()
	for _, mode := range []string{"read-only", "workspace-write"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			s := jailtest.New(t)
			cmd := exec.Command(indusr, "--cwd", s.Workspace, "--no-mcp", "--sandbox", mode, "serve")
			cmd.Stderr = &testWriter{t: t}
			cs := connect(t, &mcp.CommandTransport{Command: cmd}, newEvents())
			bash := func(command string) *mcp.CallToolResult {
				return call(t, cs, "bash", map[string]any{"command": command})
			}
			attempts, escaped := s.Run(t, func(_ testing.TB, command string) string { return text(bash(command)) }, true, false)
			if len(escaped) != 0 || attempts < 20 {
				t.Fatalf("%d attempts, escapes: %v", attempts, escaped)
			}
			if mode != "workspace-write" {
				return
			}
			outside := filepath.Join(s.Outside, "x-outside")
			res := bash("touch " + outside)
			if !res.IsError || !strings.Contains(text(res), "[sandbox workspace-write:") {
				t.Errorf("touch outside: error=%v %q; want a failure with the sandbox's note", res.IsError, text(res))
			}
			if _, err := os.Stat(outside); err == nil {
				t.Error("a bash call through serve wrote outside the workspace")
			}
			mustSucceed(t, "bash", bash("touch sub/x-inside"))
			if _, err := os.Stat(filepath.Join(s.Workspace, "sub/x-inside")); err != nil {
				t.Errorf("the write inside the workspace did not happen: %v", err)
			}
		})
	}
}
