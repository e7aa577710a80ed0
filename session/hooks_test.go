package session

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/indusagi/induscode/approval"
)

// hookWorkspace is a workspace with files and a trust store of its own.
func hookWorkspace(t *testing.T, files map[string]string) (string, *approval.Store) {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	store := approval.NewStore(filepath.Join(t.TempDir(), "indusvx", approval.FileName))
	return dir, &store
}

type warnings struct {
	mu sync.Mutex
	w  []string
}

func (w *warnings) add(m string) { w.mu.Lock(); w.w = append(w.w, m); w.mu.Unlock() }
func (w *warnings) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return strings.Join(w.w, "\n")
}

const rmGuard = `#!/bin/sh
# Refuses a bash command holding rm -rf (exit 2: the reason on stderr).
if grep -q 'rm -rf'; then echo "rm -rf is not allowed in this repository" >&2; exit 2; fi
`

// runBash runs a bash command in a fresh session and returns the result's
// text, whether it was an error, and the warnings.
func runBash(t *testing.T, opts Options, command string) (string, bool, string) {
	t.Helper()
	w := &warnings{}
	opts.NoMCP, opts.Warn = true, w.add
	s, err := Open(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	res := s.Run(context.Background(), "bash", []byte(`{"command":"`+command+`"}`))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return res.PlainText(), res.IsError, w.String()
}

// A manifest's [[hook]] runs only once approved; a changed hook needs a
// new approval; TrustHooks runs it for one session.
func TestManifestHookNeedsApproval(t *testing.T) {
	t.Parallel()
	dir, store := hookWorkspace(t, map[string]string{
		".indus/addons/safety/manifest.toml": "id = \"safety\"\n[[hook]]\nevent = \"PreToolUse\"\nmatcher = \"bash\"\ncommand = \"\\\"$INDUSR_ADDON_DIR/guard.sh\\\"\"\n",
		".indus/addons/safety/guard.sh":      rmGuard,
		"victim/file":                        "x",
	})
	opts := Options{Dir: dir, Approvals: store}
	out, isErr, warns := runBash(t, opts, "rm -rf victim")
	if isErr || !strings.Contains(warns, "not running 1 command hook(s) of .indus/addons/safety/manifest.toml") || !strings.Contains(warns, "indusr hooks trust") {
		t.Fatalf("untrusted: %q (error %v), warnings %q; want the call run and a warning", out, isErr, warns)
	}
	if err := os.MkdirAll(filepath.Join(dir, "victim"), 0o755); err != nil {
		t.Fatal(err)
	}
	a, err := Approve(opts, AddonHooks, ClaudeHooks)
	if err != nil || !a.Group(AddonHooks).Approved || len(a.Group(AddonHooks).Units) != 1 {
		t.Fatalf("Approve: %+v, %v", a, err)
	}
	out, isErr, warns = runBash(t, opts, "rm -rf victim")
	if !isErr || !strings.Contains(out, "addon safety blocked the call of bash: rm -rf is not allowed in this repository") || warns != "" {
		t.Errorf("trusted: %q (error %v), warnings %q; want the hook's refusal", out, isErr, warns)
	}
	if _, err := os.Stat(filepath.Join(dir, "victim")); err != nil {
		t.Errorf("the refused rm -rf ran: %v", err)
	}
	if out, isErr, _ := runBash(t, opts, "echo fine"); isErr || !strings.Contains(out, "fine") {
		t.Errorf("a harmless command: %q (error %v)", out, isErr)
	}

	// A changed hook is a new hook: not run until approved again, and
	// as it guarded bash, bash calls are held meanwhile.
	if err := os.WriteFile(filepath.Join(dir, ".indus/addons/safety/manifest.toml"),
		[]byte("id = \"safety\"\n[[hook]]\nevent = \"PreToolUse\"\nmatcher = \"bash\"\ncommand = \"$INDUSR_ADDON_DIR/guard.sh\"\ntimeout = 5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, isErr, warns = runBash(t, opts, "rm -rf victim/file")
	if !isErr || !strings.Contains(out, "changed since you approved it") || !strings.Contains(out, "indusr hooks trust") ||
		!strings.Contains(warns, "not running 1 command hook(s)") || !fileExists(dir, "victim") {
		t.Errorf("changed hook: %q (error %v), warnings %q; want the call held and the hook not run", out, isErr, warns)
	}
	trusted := opts
	trusted.TrustHooks = true
	if out, isErr, _ := runBash(t, trusted, "rm -rf victim"); !isErr || !strings.Contains(out, "rm -rf is not allowed") {
		t.Errorf("TrustHooks: %q (error %v), want the refusal", out, isErr)
	}
	if had, err := Revoke(opts, AddonHooks, ClaudeHooks); err != nil || !had {
		t.Errorf("Revoke: %v %v", had, err)
	}
}

// Claude Code's settings hooks run only with ClaudeHooks, and only once
// approved; untrusted, they are not run and the session says so.
func TestClaudeSettingsHooks(t *testing.T) {
	t.Parallel()
	dir, store := hookWorkspace(t, map[string]string{
		".claude/settings.json": `{
  "hooks": {
    "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "$CLAUDE_PROJECT_DIR/guard.sh"}]}],
    "SessionStart": [{"hooks": [{"type": "command", "command": "touch started"}]}]
  }
}`,
		"guard.sh": rmGuard,
		"victim":   "x",
	})
	opts := Options{Dir: dir, Approvals: store}
	if _, isErr, warns := runBash(t, opts, "rm -rf victim"); isErr || warns != "" || fileExists(dir, "started") {
		t.Fatalf("without ClaudeHooks: error %v, warnings %q; want nothing run and nothing said", isErr, warns)
	}
	opts.ClaudeHooks = true
	if err := os.WriteFile(filepath.Join(dir, "victim"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, isErr, warns := runBash(t, opts, "rm -rf victim")
	if isErr || !strings.Contains(warns, "not running 2 command hook(s) of .claude/settings.json") || fileExists(dir, "started") {
		t.Fatalf("untrusted: error %v, warnings %q; want not run, and said so", isErr, warns)
	}
	if _, err := Approve(opts, AddonHooks, ClaudeHooks); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "victim"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, isErr, warns := runBash(t, opts, "rm -rf victim")
	if !isErr || !strings.Contains(out, "addon claude-settings blocked the call of bash: rm -rf is not allowed") || warns != "" {
		t.Errorf("trusted: %q (error %v), warnings %q", out, isErr, warns)
	}
	if !fileExists(dir, "started") || !fileExists(dir, "victim") {
		t.Errorf("SessionStart hook ran: %v; victim kept: %v", fileExists(dir, "started"), fileExists(dir, "victim"))
	}
}

func fileExists(dir, name string) bool {
	_, err := os.Stat(filepath.Join(dir, name))
	return err == nil
}
