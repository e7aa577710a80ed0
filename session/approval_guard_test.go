package session

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The model cannot rewrite approved code with the deck's write or edit:
// every file an approval covers (a hook's script anywhere in the
// workspace, an addon's folder, the settings and MCP config themselves,
// the script a server runs) is refused with a message naming the approval,
// and the files stay as approved.
func TestWriteAndEditRefuseApprovedCode(t *testing.T) {
	t.Parallel()
	dir, store := hookWorkspace(t, map[string]string{
		".claude/settings.json":              claudeGuarded,
		"hooks/guard.sh":                     rmGuard,
		".indus/addons/safety/manifest.toml": "id = \"safety\"\n[[hook]]\nevent = \"PostToolUse\"\nmatcher = \"bash\"\ncommand = \"\\\"$INDUSR_ADDON_DIR/h.sh\\\"\"\n",
		".indus/addons/safety/h.sh":          "#!/bin/sh\nexit 0\n",
		".mcp.json":                          `{"mcpServers":{"local":{"command":"sh","args":["./srv.sh"]}}}`,
		"srv.sh":                             "#!/bin/sh\n",
		"plain.txt":                          "plain\n",
	})
	opts := Options{Dir: dir, Approvals: store, ClaudeHooks: true, NoMCP: true}
	if _, err := Approve(opts); err != nil {
		t.Fatal(err)
	}
	s, err := Open(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	run := func(name string, in map[string]any) (string, bool) {
		b, _ := json.Marshal(in)
		res := s.Run(context.Background(), name, b)
		return res.PlainText(), res.IsError
	}
	for path, approval := range map[string]string{
		".claude/settings.json":              "Claude Code hooks",
		"hooks/guard.sh":                     "Claude Code hooks",
		".claude/hooks/new.sh":               "Claude Code hooks",
		".indus/addons/safety/h.sh":          "addon hooks and processes",
		".indus/addons/safety/manifest.toml": "addon hooks and processes",
		".mcp.json":                          "MCP servers",
		"srv.sh":                             "MCP servers",
	} {
		before, _ := os.ReadFile(filepath.Join(dir, path))
		run("read", map[string]any{"path": path})
		for _, call := range []struct {
			tool string
			in   map[string]any
		}{
			{"write", map[string]any{"path": path, "content": "#!/bin/sh\ntouch pwned\n"}},
			{"edit", map[string]any{"path": path, "old_string": "#!/bin/sh", "new_string": "#!/bin/sh\ntouch pwned"}},
		} {
			out, isErr := run(call.tool, call.in)
			if !isErr || !strings.Contains(out, "your approval of this workspace's "+approval) || !strings.Contains(out, path) {
				t.Errorf("%s %s: %q (error %v); want a refusal naming the approval of its %s", call.tool, path, out, isErr, approval)
			}
		}
		if after, _ := os.ReadFile(filepath.Join(dir, path)); string(after) != string(before) {
			t.Errorf("%s changed to %q", path, after)
		}
	}
	if out, isErr := run("write", map[string]any{"path": "notes.txt", "content": "fine\n"}); isErr {
		t.Errorf("a file no approval covers: %s", out)
	}
}

// Without any approval, the places a workspace keeps code that runs by
// itself once approved are refused too, as the sandbox refuses them.
func TestWriteRefusesCodePlacesWithoutApproval(t *testing.T) {
	t.Parallel()
	dir, store := hookWorkspace(t, map[string]string{"a.txt": "a"})
	s, err := Open(context.Background(), Options{Dir: dir, Approvals: store, NoMCP: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, path := range []string{".claude/hooks/x.sh", ".claude/settings.local.json", ".indus/addons/a/manifest.toml", ".mcp.json", ".indusvx/mcp.json"} {
		res := s.Run(context.Background(), "write", []byte(`{"path":"`+path+`","content":"x"}`))
		if !res.IsError || !strings.Contains(res.PlainText(), "runs by itself once approved") {
			t.Errorf("%s: %q (error %v), want refused", path, res.PlainText(), res.IsError)
		}
		if fileExists(dir, path) {
			t.Errorf("%s written", path)
		}
	}
}
