package cards

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/indusagi/induscode/internal/jail"
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
