package serve

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/indusagi/induscode/approval"
	"github.com/indusagi/induscode/session"
)

// indusr serve runs the workspace's approved command hooks around the
// tools it serves: the shipped block-rm-rf example refuses rm -rf in
// bash, and with --claude-hooks a PostToolUse hook of
// .claude/settings.json adds its feedback to the result the client sees.
func TestServeCommandHooks(t *testing.T) {
	t.Parallel()
	example := func(name string) string {
		b, err := os.ReadFile(filepath.Join("..", "examples", "addons", "block-rm-rf", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	dir := workspace(t, map[string]string{
		".indus/addons/block-rm-rf/manifest.toml":  example("manifest.toml"),
		".indus/addons/block-rm-rf/block-rm-rf.sh": example("block-rm-rf.sh"),
		".claude/settings.json": `{"hooks": {"PostToolUse": [{"matcher": "Bash", "hooks": [
			{"type": "command", "command": "echo '{\"decision\":\"block\",\"reason\":\"remember to run the linter\"}'"}]}]}}`,
		"victim/keep": "x",
	})
	xdg := t.TempDir()
	store := approval.NewStore(filepath.Join(xdg, "indusvx", approval.FileName))
	if _, err := session.Approve(session.Options{Dir: dir, Approvals: &store}, session.AddonHooks, session.ClaudeHooks); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(indusr, "--cwd", dir, "--no-mcp", "--claude-hooks", "serve")
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+xdg)
	cmd.Stderr = &testWriter{t: t}
	cs := connect(t, &mcp.CommandTransport{Command: cmd}, newEvents())

	res := call(t, cs, "bash", map[string]any{"command": "rm -rf victim"})
	if !res.IsError || !strings.Contains(text(res), "addon block-rm-rf blocked the call of bash: rm -rf is blocked in this repository") {
		t.Errorf("rm -rf through serve: error=%v %q, want the hook's refusal", res.IsError, text(res))
	}
	if _, err := os.Stat(filepath.Join(dir, "victim", "keep")); err != nil {
		t.Errorf("the refused command ran: %v", err)
	}
	out := mustSucceed(t, "bash", call(t, cs, "bash", map[string]any{"command": "echo safe"}))
	if !strings.Contains(out, "safe") || !strings.Contains(out, "PostToolUse hook: remember to run the linter") {
		t.Errorf("echo through serve: %q, want its output and the post hook's feedback", out)
	}
}
