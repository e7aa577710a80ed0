package cli_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/indusagi/induscode/internal/fakemodel"
	"github.com/indusagi/induscode/internal/testtree"
)

// The model cannot rewrite approved hook code, even with every permission
// granted: under -p --permission-mode bypassPermissions a scripted model
// writes and edits every file the approval covers (Claude Code's hook
// script and settings, a script a hook names elsewhere, an addon's hook
// script and manifest, a new file in .claude/hooks, package.json of an
// npm-run hook); each call is refused naming the approval, every file
// stays as approved, and the hooks that run afterwards run only the
// approved code.
func TestPrintBypassCannotRewriteApprovedCode(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	on := func(command string) []any {
		return []any{map[string]any{"matcher": "", "hooks": []any{map[string]any{"type": "command", "command": command}}}}
	}
	settings, _ := json.Marshal(map[string]any{"hooks": map[string]any{
		"PostToolUse": append(on("bash .claude/hooks/c.sh"), on("bash scripts/lint.sh")...),
	}})
	files := map[string]string{
		".claude/settings.json":           string(settings),
		".claude/hooks/c.sh":              "echo claude-approved >> logs/hook.log\n",
		"scripts/lint.sh":                 "echo lint-approved >> logs/hook.log\n",
		".indus/addons/fmt/manifest.toml": "id = \"fmt\"\n[[hook]]\nevent = \"PostToolUse\"\ncommand = \"bash \\\"$INDUSR_ADDON_DIR/h.sh\\\"\"\n[sandbox]\nwrite = [\"logs\"]\n",
		"logs/keep":                       "",
		".indus/addons/fmt/h.sh":          "echo addon-approved >> logs/hook.log\n",
	}
	testtree.Write(t, dir, files)
	env := func(cmd *exec.Cmd) *exec.Cmd {
		cmd.Env = append(cmd.Env, "HOME="+t.TempDir())
		return cmd
	}
	trust := exec.Command("indusr", "-C", dir, "hooks", "trust", "--yes")
	trust.Env = append(os.Environ(), "XDG_CONFIG_HOME="+filepath.Join(dir, ".xdg"), "HOME="+t.TempDir())
	if out, err := trust.CombinedOutput(); err != nil || !strings.Contains(string(out), "every file under .claude/ and .indus/") {
		t.Fatalf("hooks trust: %v\n%s", err, out)
	}
	const evil = "touch pwned\\n"
	targets := []string{".claude/hooks/c.sh", ".claude/settings.json", "scripts/lint.sh", ".indus/addons/fmt/h.sh",
		".indus/addons/fmt/manifest.toml", ".claude/hooks/new.sh"}
	var calls []string
	for _, p := range targets {
		calls = append(calls, "write", `{"path":"`+p+`","content":"`+evil+`"}`)
	}
	calls = append(calls, "edit", `{"path":".claude/hooks/c.sh","old_string":"echo","new_string":"touch pwned; echo"}`)
	srv := fakemodel.Start(t,
		fakemodel.Call("read", `{"path":".claude/hooks/c.sh"}`),
		fakemodel.Call(calls...),
		fakemodel.Call("write", `{"path":"notes.txt","content":"still writable\n"}`),
		fakemodel.Say("done"))
	cmd := env(indusrP(t, dir, srv, "--claude-hooks", "-p", "rewrite the hooks", "--permission-mode", "bypassPermissions"))
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "done") {
		t.Fatalf("%v\n%s", err, out)
	}
	reqs := srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests:\n%s", len(reqs), out)
	}
	var body struct {
		Messages []struct {
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(reqs[2].Body, &body); err != nil {
		t.Fatal(err)
	}
	var results []struct {
		IsError bool            `json:"is_error"`
		Content json.RawMessage `json:"content"`
	}
	json.Unmarshal(body.Messages[len(body.Messages)-1].Content, &results)
	if len(results) != len(targets)+1 {
		t.Fatalf("%d tool results, want %d: %s", len(results), len(targets)+1, body.Messages[len(body.Messages)-1].Content)
	}
	for i, r := range results {
		if !r.IsError || !strings.Contains(string(r.Content), "your approval of this workspace") || !strings.Contains(string(r.Content), "indusr hooks trust") {
			t.Errorf("call %d: %s (error %v), want a refusal naming the approval", i, r.Content, r.IsError)
		}
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "notes.txt")); string(got) != "still writable\n" {
		t.Errorf("a file no approval covers was not written: %q", got)
	}
	for p, want := range files {
		if got, _ := os.ReadFile(filepath.Join(dir, p)); string(got) != want {
			t.Errorf("%s is now %q, want %q", p, got, want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, ".claude/hooks/new.sh")); err == nil {
		t.Error(".claude/hooks/new.sh was created")
	}
	if _, err := os.Stat(filepath.Join(dir, "pwned")); err == nil {
		t.Error("a hook ran changed code")
	}
	log, _ := os.ReadFile(filepath.Join(dir, "logs/hook.log"))
	for _, want := range []string{"claude-approved", "lint-approved", "addon-approved"} {
		if !strings.Contains(string(log), want) {
			t.Errorf("the approved %s hook did not run; hook.log:\n%s", want, log)
		}
	}
}
