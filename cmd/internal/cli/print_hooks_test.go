package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/indusagi/induscode/internal/fakemodel"
)

// Claude Code hooks of .claude/settings.json drive a -p run in the
// default permission mode: SessionStart's and UserPromptSubmit's
// additionalContext reach the model with the prompt, a PreToolUse allow
// lets a bash call run that no rule allows, and a Stop hook's block keeps
// the agent going with its reason.
func TestPrintRunsClaudeHooks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	type hook struct {
		Type    string `json:"type"`
		Command string `json:"command"`
	}
	type group struct {
		Matcher string `json:"matcher,omitempty"`
		Hooks   []hook `json:"hooks"`
	}
	on := func(matcher, command string) []group { return []group{{matcher, []hook{{"command", command}}}} }
	settings, _ := json.Marshal(map[string]any{"hooks": map[string]any{
		"SessionStart":     on("", `echo '{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"session note: build with make"}}'`),
		"UserPromptSubmit": on("", `echo '{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"prompt note: the branch is main"}}'`),
		"PreToolUse":       on("Bash", `grep -q 'touch ok' && echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}'; exit 0`),
		"Stop":             on("", `grep -q '"stop_hook_active":true' && exit 0; echo '{"decision":"block","reason":"say goodbye too"}'`),
	}})
	os.MkdirAll(filepath.Join(dir, ".claude"), 0o755)
	os.WriteFile(filepath.Join(dir, ".claude", "settings.json"), settings, 0o644)
	srv := fakemodel.Start(t,
		fakemodel.Call("bash", `{"command":"touch ok"}`, "bash", `{"command":"touch nope"}`),
		fakemodel.Say("made it"),
		fakemodel.Say("goodbye"))
	cmd := indusrP(t, dir, srv, "--claude-hooks", "-p", "make the file")
	cmd.Env = append(cmd.Env, "HOME="+dir, "INDUSR_TRUST_HOOKS=1")
	out, err := cmd.CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "goodbye" {
		t.Fatalf("%v\n%s", err, out)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	first := string(reqs[0].Body)
	for _, want := range []string{"make the file", "session note: build with make", "prompt note: the branch is main"} {
		if !strings.Contains(first, want) {
			t.Errorf("the first request lacks %q: %s", want, first)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "ok")); err != nil {
		t.Error("the call the PreToolUse hook allowed did not run")
	}
	if _, err := os.Stat(filepath.Join(dir, "nope")); err == nil {
		t.Error("a call no hook or rule allowed ran in the default mode")
	}
	if second := string(reqs[1].Body); !strings.Contains(second, "needs permission") || !strings.Contains(second, "PreToolUse hook that answers allow") {
		t.Errorf("the refusal does not say how to allow the call: %s", second)
	}
	if third := string(reqs[2].Body); !strings.Contains(third, "say goodbye too") {
		t.Errorf("the Stop hook's reason did not reach the model: %s", third)
	}
}
