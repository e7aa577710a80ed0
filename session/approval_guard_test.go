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

// An approval of a workspace's hooks covers the code a command reaches
// in ways no reading of it can list: every file under .claude/ and
// .indus/, and package.json for a package script. Changing any of them
// undoes the approval, names the file, and the approval text says what
// is covered.
func TestHookApprovalCoversIndirectCode(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]struct{ command, changed string }{
		"source":             {`bash -c "source .claude/hooks/x.sh"`, ".claude/hooks/x.sh"},
		"cat":                {`bash -c "$(cat .claude/hooks/x.sh)"`, ".claude/hooks/x.sh"},
		"project dir":        {`"$CLAUDE_PROJECT_DIR/.claude/hooks/x.sh"`, ".claude/hooks/x.sh"},
		"BASH_ENV":           {`BASH_ENV=.claude/hooks/x.sh bash -c true`, ".claude/hooks/x.sh"},
		"glob":               {`bash .claude/hooks/x*.sh`, ".claude/hooks/x.sh"},
		"cd":                 {`cd .claude/hooks && bash x.sh`, ".claude/hooks/x.sh"},
		"library":            {`bash .claude/hooks/main.sh`, ".claude/hooks/lib.sh"},
		"addon library":      {`bash .claude/hooks/main.sh`, ".indus/lib/common.sh"},
		"npm run":            {`npm run hook`, "package.json"},
		"npx":                {`npx some-tool`, "package.json"},
		"new file in folder": {`bash .claude/hooks/main.sh`, ".claude/hooks/new.sh"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			settings := `{"hooks":{"PostToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":` + strconvQuote(c.command) + `}]}]}}`
			dir, store := hookWorkspace(t, map[string]string{
				".claude/settings.json": settings,
				".claude/hooks/x.sh":    "true\n",
				".claude/hooks/main.sh": "source .claude/hooks/lib.sh\n",
				".claude/hooks/lib.sh":  "true\n",
				".indus/lib/common.sh":  "true\n",
				"package.json":          `{"scripts":{"hook":"true"}}`,
			})
			opts := Options{Dir: dir, Approvals: store, ClaudeHooks: true}
			a, err := Approve(opts, ClaudeHooks)
			if err != nil {
				t.Fatal(err)
			}
			if shows := strings.Join(a.Group(ClaudeHooks).Units[0].Shows, "\n"); !strings.Contains(shows, "every file under .claude/ and .indus/") {
				t.Errorf("the approval text does not say what it covers:\n%s", shows)
			}
			if err := os.WriteFile(filepath.Join(dir, c.changed), []byte("touch pwned\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			a, err = ReadApprovals(opts, ClaudeHooks)
			if err != nil {
				t.Fatal(err)
			}
			g := a.Group(ClaudeHooks)
			if g.Approved || g.Units[0].Approved || !strings.Contains(g.Why(), "file "+c.changed) {
				t.Errorf("after changing %s: approved %v, why %q", c.changed, g.Units[0].Approved, g.Why())
			}
		})
	}
}

func strconvQuote(s string) string { b, _ := json.Marshal(s); return string(b) }
