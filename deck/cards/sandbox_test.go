//go:build linux

package cards

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/indusagi/induscode/internal/jail"
	"github.com/indusagi/induscode/internal/jail/jailtest"
	"github.com/indusagi/induscode/tool"
	"github.com/indusagi/induscode/tools/shell"
)

// A delegated agent of a sandboxed session runs confined by the session's
// mode: it writes the workspace, not outside it.
func TestDelegateRunsInTheSessionSandbox(t *testing.T) {
	if r := jail.Probe(); r.ABI < 1 {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the sandbox tests need Landlock: %v", r.Err)
		}
		t.Skipf("no Landlock here: %v", r.Err)
	}
	ws, outside := t.TempDir(), t.TempDir()
	if err := os.Mkdir(filepath.Join(ws, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	env := tool.NewEnv(ws)
	t.Cleanup(func() { env.Close() })
	shell.EngineOf(env).Confine(jail.ForMode(jail.WorkspaceWrite, ws, t.TempDir()))
	script := "touch " + outside + "/agent-outside; touch sub/agent-inside; echo finished"
	runner := &CommandRunner{Roster: []CommandAgent{{Name: "sh", Argv: []string{"sh", "-c", script}}}, Dir: ws}
	res := run(t, Task(runner), env, map[string]any{"objective": "work"})
	if !strings.Contains(res.PlainText(), "finished") {
		t.Fatalf("the agent did not run: %s", res.PlainText())
	}
	if _, err := os.Stat(filepath.Join(outside, "agent-outside")); err == nil {
		t.Error("the delegated agent wrote outside the workspace")
	}
	if _, err := os.Stat(filepath.Join(ws, "sub/agent-inside")); err != nil {
		t.Errorf("the delegated agent could not write inside the workspace: %v", err)
	}
}

// The escape suite through bg-process, in each sandboxed mode, on pipes
// and in a terminal: no family (files, git, sockets, terminals, ...)
// counts an escape.
func TestEscapeSuiteThroughBgProcess(t *testing.T) {
	if r := jail.Probe(); r.ABI < 1 {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the sandbox tests need Landlock: %v", r.Err)
		}
		t.Skipf("no Landlock here: %v", r.Err)
	}
	t.Parallel()
	for _, mode := range []jail.Mode{jail.ReadOnly, jail.WorkspaceWrite} {
		for _, pty := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s, pty %v", mode, pty), func(t *testing.T) {
				t.Parallel()
				s := jailtest.New(t)
				env := tool.NewEnv(s.Workspace)
				t.Cleanup(func() { env.Close() })
				shell.EngineOf(env).Confine(jail.ForMode(mode, s.Workspace, t.TempDir()))
				attempts, escaped := s.Run(t, func(t testing.TB, command string) string {
					start := map[string]any{"action": "start", "command": command}
					if pty {
						start["pty"], start["cols"] = true, 400
					}
					r := run(t.(*testing.T), BgProcess(), env, start)
					id := regexp.MustCompile(`^Started (p\d+)`).FindStringSubmatch(text(r))
					if r.IsError || id == nil {
						t.Fatalf("start: %s", text(r))
					}
					var all strings.Builder
					all.WriteString(text(r))
					for range 20 {
						if strings.Contains(all.String(), "@@attempt end") {
							break
						}
						all.WriteString(text(run(t.(*testing.T), BgProcess(), env, map[string]any{"action": "wait", "id": id[1], "pattern": "@@attempt end", "timeout_ms": 30000})))
					}
					return all.String()
				}, true, false)
				if len(escaped) != 0 || attempts < 40 {
					t.Fatalf("%d attempts, escapes: %v", attempts, escaped)
				}
			})
		}
	}
}
