//go:build unix

package session

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/indusagi/induscode/internal/testtree"
)

// A hook's code is checked against its approval before every run, not
// once per session: changed while the session runs (here by a program
// outside the deck, as a command under the off mode could), an observing
// hook is not run and says why, and a changed guard holds the calls it
// matches.
func TestHookCodeCheckedAtEveryRun(t *testing.T) {
	t.Parallel()
	const post = `"PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "bash .claude/hooks/post.sh"}]}]`
	const pre = `"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "bash ./hooks/guard.sh"}]}]`
	open := func(t *testing.T, settings string) (string, *warnings, func(string) (string, bool)) {
		dir, store := hookWorkspace(t, map[string]string{
			".claude/settings.json": `{"hooks": {` + settings + `}}`,
			"hooks/guard.sh":        rmGuard,
			".claude/hooks/post.sh": "echo ran >> post.log\n",
		})
		w := &warnings{}
		opts := Options{Dir: dir, Approvals: store, ClaudeHooks: true, NoMCP: true, Warn: w.add}
		if _, err := Approve(opts, ClaudeHooks); err != nil {
			t.Fatal(err)
		}
		s, err := Open(context.Background(), opts)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return dir, w, func(cmd string) (string, bool) {
			r := s.Run(context.Background(), "bash", []byte(`{"command":"`+cmd+`"}`))
			return r.PlainText(), r.IsError
		}
	}
	t.Run("observer", func(t *testing.T) {
		dir, w, bash := open(t, post)
		if out, isErr := bash("echo one"); isErr || !fileExists(dir, "post.log") {
			t.Fatalf("approved hook: %q (error %v), post.log made %v", out, isErr, fileExists(dir, "post.log"))
		}
		if err := os.WriteFile(filepath.Join(dir, ".claude/hooks/post.sh"), []byte("touch pwned-post\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		if out, isErr := bash("echo two"); isErr {
			t.Errorf("a changed observing hook blocked the call: %q", out)
		}
		if fileExists(dir, "pwned-post") {
			t.Error("the PostToolUse hook ran code changed since its approval")
		}
		if !strings.Contains(w.String(), "changed: file .claude/hooks/post.sh") {
			t.Errorf("warnings %q do not say what changed", w.String())
		}
	})
	// A guard's approval covers .claude/ whole, so a change to its script
	// or to anything there holds the calls it matches.
	for _, changed := range []string{"hooks/guard.sh", ".claude/hooks/post.sh"} {
		t.Run("guard/"+changed, func(t *testing.T) {
			dir, _, bash := open(t, pre+", "+post)
			if out, isErr := bash("echo one"); isErr {
				t.Fatalf("approved hooks: %q", out)
			}
			if err := os.WriteFile(filepath.Join(dir, changed), []byte("touch pwned\nexit 0\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			if out, isErr := bash("echo two"); !isErr || !strings.Contains(out, "changed: file "+changed) || !strings.Contains(out, "indusr hooks trust") {
				t.Errorf("a changed guard: %q (error %v), want the call held naming the change", out, isErr)
			}
			if fileExists(dir, "pwned") {
				t.Error("a hook ran code changed since its approval")
			}
		})
	}
}

// A planted sparse file of gigabytes under .claude/ is never read to hash
// (which every check before a hook's run would do again): it is named as
// too large, and no approval covers it, so the hooks it could reach do not
// run.
func TestHugeFileIsNeverCovered(t *testing.T) {
	t.Parallel()
	dir, store := hookWorkspace(t, map[string]string{
		".claude/settings.json": `{"hooks":{"PostToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"touch ran"}]}]}}`,
	})
	big := filepath.Join(dir, ".claude/hooks/big.sh")
	for _, h := range testtree.Hostiles(true) {
		if h.Name == "huge sparse file" {
			h.Plant(t, big, "", "touch pwned\n")
		}
	}
	opts := Options{Dir: dir, Approvals: store, ClaudeHooks: true, NoMCP: true}
	var a *Approvals
	var err error
	testtree.NoHang(t, "approve", func() { a, err = Approve(opts, ClaudeHooks) })
	if err != nil {
		t.Fatal(err)
	}
	g := a.Group(ClaudeHooks)
	if g.Approved || g.Units[0].Approved || !strings.Contains(g.Why(), "never covered: file .claude/hooks/big.sh") {
		t.Errorf("approved %v, why %q: want the huge file named and nothing approved", g.Approved, g.Why())
	}
	testtree.NoHang(t, "run", func() {
		if out, isErr, _ := runBash(t, opts, "true"); isErr {
			t.Errorf("bash: %s", out)
		}
	})
	if fileExists(dir, "ran") {
		t.Error("a hook ran although its approval cannot cover a file it may reach")
	}
}
