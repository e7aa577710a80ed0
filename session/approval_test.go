package session

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/indusagi/induscode/bridge/mcpconfig"
)

const claudeGuarded = `{"hooks": {
  "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "bash ./hooks/guard.sh"}]}],
  "PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "touch observed"}]}]
}}`

// Editing the script an approved hook runs is a change: the edited hook
// does not run, and as it guarded bash, bash calls fail naming the hook
// and the fix until the change is approved.
func TestEditedHookScriptNeedsApproval(t *testing.T) {
	t.Parallel()
	dir, store := hookWorkspace(t, map[string]string{
		".claude/settings.json": claudeGuarded,
		"hooks/guard.sh":        rmGuard,
		"victim":                "x",
	})
	opts := Options{Dir: dir, Approvals: store, ClaudeHooks: true}
	if _, err := Approve(opts, ClaudeHooks); err != nil {
		t.Fatal(err)
	}
	if out, isErr, _ := runBash(t, opts, "rm -rf victim"); !isErr || !strings.Contains(out, "rm -rf is not allowed") {
		t.Fatalf("approved guard: %q (error %v), want its refusal", out, isErr)
	}
	// The repository turns its guard into a pass.
	if err := os.WriteFile(filepath.Join(dir, "hooks/guard.sh"), []byte("#!/bin/sh\ntouch ran-unapproved\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	out, isErr, warns := runBash(t, opts, "rm -rf victim")
	if !isErr || !strings.Contains(out, `PreToolUse hook "bash ./hooks/guard.sh" (.claude/settings.json:2)`) ||
		!strings.Contains(out, "indusr hooks trust") || !fileExists(dir, "victim") {
		t.Errorf("edited guard: %q (error %v); want the call held, naming the hook and the fix", out, isErr)
	}
	if fileExists(dir, "ran-unapproved") {
		t.Error("the edited hook script ran without an approval")
	}
	if !strings.Contains(warns, "changed: file hooks/guard.sh") {
		t.Errorf("warnings %q do not say what changed", warns)
	}
	// Calls the guard does not match run; the observing hook, approved and
	// unchanged, still runs.
	if out, isErr, _ := runBash(t, Options{Dir: dir, Approvals: store}, "echo fine"); isErr || !strings.Contains(out, "fine") {
		t.Errorf("without Claude's hooks: %q (error %v)", out, isErr)
	}
	a, err := Approve(opts, ClaudeHooks)
	if err != nil || !a.Group(ClaudeHooks).Approved {
		t.Fatalf("re-approve: %+v %v", a, err)
	}
	if out, isErr, _ := runBash(t, opts, "echo fine"); isErr || !fileExists(dir, "ran-unapproved") {
		t.Errorf("re-approved: %q (error %v), want the new hook run", out, isErr)
	}
}

// Editing .claude/settings.json must not turn a guard off: a guard whose
// matcher was changed (so it would match nothing) still holds the calls
// it matched when approved, and an observing hook that changed is
// skipped with a warning.
func TestEditedSettingsKeepGuardsOn(t *testing.T) {
	t.Parallel()
	dir, store := hookWorkspace(t, map[string]string{
		".claude/settings.json": claudeGuarded,
		"hooks/guard.sh":        rmGuard,
		"victim":                "x",
	})
	opts := Options{Dir: dir, Approvals: store, ClaudeHooks: true}
	if _, err := Approve(opts, ClaudeHooks); err != nil {
		t.Fatal(err)
	}
	edited := strings.ReplaceAll(claudeGuarded, `"matcher": "Bash", "hooks": [{"type": "command", "command": "bash`, `"matcher": "Nothing", "hooks": [{"type": "command", "command": "bash`)
	edited = strings.ReplaceAll(edited, "touch observed", "touch observed-changed")
	if err := os.WriteFile(filepath.Join(dir, ".claude/settings.json"), []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	out, isErr, warns := runBash(t, opts, "rm -rf victim")
	if !isErr || !strings.Contains(out, "changed since you approved it") || !strings.Contains(out, "indusr hooks trust") || !fileExists(dir, "victim") {
		t.Errorf("guard edited away: %q (error %v); want the call held", out, isErr)
	}
	if !strings.Contains(warns, "not running 2 command hook(s) of .claude/settings.json") {
		t.Errorf("warnings %q; want the changed hooks named as not run", warns)
	}
	if fileExists(dir, "observed-changed") || fileExists(dir, "observed") {
		t.Error("a changed observing hook ran without an approval")
	}
	// Other tools run.
	w := &warnings{}
	o := opts
	o.NoMCP, o.Warn = true, w.add
	s, err := Open(t.Context(), o)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if res := s.Run(t.Context(), "read", []byte(`{"path":"victim"}`)); res.IsError {
		t.Errorf("read, which no guard matches: %s", res.PlainText())
	}
}

// A hook that was never approved is not a guard: it does not run and the
// session says so, but it holds no call.
func TestNeverApprovedHookHoldsNothing(t *testing.T) {
	t.Parallel()
	dir, store := hookWorkspace(t, map[string]string{".claude/settings.json": claudeGuarded, "hooks/guard.sh": rmGuard})
	out, isErr, warns := runBash(t, Options{Dir: dir, Approvals: store, ClaudeHooks: true}, "echo fine")
	if isErr || !strings.Contains(out, "fine") || !strings.Contains(warns, "not running 2 command hook(s)") {
		t.Errorf("%q (error %v), warnings %q", out, isErr, warns)
	}
}

// An addon folder that is a link to a folder outside the workspace is
// refused, approved or not: its hooks and process never run.
func TestSymlinkedAddonFolderIsRefused(t *testing.T) {
	t.Parallel()
	outside := t.TempDir()
	for name, body := range map[string]string{
		"manifest.toml": "id = \"far\"\n[[hook]]\nevent = \"SessionStart\"\ncommand = \"touch " + filepath.Join(outside, "ran") + "\"\n",
	} {
		if err := os.WriteFile(filepath.Join(outside, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dir, store := hookWorkspace(t, map[string]string{"README": "x"})
	if err := os.MkdirAll(filepath.Join(dir, ".indus/addons"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, ".indus/addons/far")); err != nil {
		t.Fatal(err)
	}
	opts := Options{Dir: dir, Approvals: store}
	a, err := Approve(opts, AddonHooks)
	if err != nil {
		t.Fatal(err)
	}
	if g := a.Group(AddonHooks); len(g.Units) != 0 || len(g.Faults) != 1 || !strings.Contains(g.Faults[0].Error(), "leads out of the workspace") {
		t.Fatalf("units %+v faults %v; want the folder refused", g.Units, g.Faults)
	}
	_, _, warns := runBash(t, opts, "echo hi")
	if fileExists(outside, "ran") {
		t.Error("the hook of a folder outside the workspace ran")
	}
	if !strings.Contains(warns, "leads out of the workspace") {
		t.Errorf("warnings %q; want the refusal said", warns)
	}
	// Trusting hooks for one run does not let it in either.
	opts.TrustHooks = true
	if _, _, _ = runBash(t, opts, "echo hi"); fileExists(outside, "ran") {
		t.Error("TrustHooks ran the hook of a folder outside the workspace")
	}
}

// A workspace MCP server runs only while the files it names are as
// approved: an edited server.sh is not started, and the warning says
// what changed.
func TestEditedServerScriptNeedsApproval(t *testing.T) {
	t.Parallel()
	dir, store := hookWorkspace(t, map[string]string{
		".mcp.json": `{"mcpServers": {"s": {"command": "sh", "args": ["server.sh"]}, "u": {"command": "true"}}}`,
		"server.sh": "exit 0\n",
	})
	opts := Options{Dir: dir, Approvals: store}
	if _, err := Approve(opts, MCPGroup); err != nil {
		t.Fatal(err)
	}
	project := []mcpconfig.Server{
		{Name: "s", Source: filepath.Join(dir, ".mcp.json"), Row: `mcpServers["s"]`},
		{Name: "u", Source: filepath.Join(dir, ".mcp.json"), Row: `mcpServers["u"]`},
	}
	if got := untrusted(opts, dir, project); len(got) != 2 {
		t.Fatalf("approved: kept %v", got)
	}
	if err := os.WriteFile(filepath.Join(dir, "server.sh"), []byte("touch pwned\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var warned string
	o := opts
	o.Warn = func(m string) { warned = m }
	got := untrusted(o, dir, project)
	if len(got) != 1 || got[0].Name != "u" || !strings.Contains(warned, "not starting server s") || !strings.Contains(warned, "changed: file server.sh") {
		t.Errorf("edited server.sh: kept %v, warning %q", got, warned)
	}
}
