package streamhost_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/indusagi/induscode/internal/fakemodel"
)

// sdkPrefix is the command line the TypeScript SDK always passes.
var sdkPrefix = []string{"--output-format", "stream-json", "--verbose", "--input-format", "stream-json"}

// indusr runs indusr in dir with stdin against srv and returns its
// stdout lines, stderr and exit code.
func indusr(t *testing.T, dir string, srv *fakemodel.Server, stdin string, args ...string) ([]map[string]any, string, int) {
	t.Helper()
	cmd := exec.Command("indusr", args...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+filepath.Join(dir, ".xdg"), "INDUSR_NO_LSP=1",
		"INDUSR_MODEL="+model, "ANTHROPIC_API_KEY=test", "ANTHROPIC_BASE_URL="+srv.URL)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	var lines []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("stdout line is not JSON: %q", l)
		}
		lines = append(lines, m)
	}
	return lines, stderr.String(), code
}

func ofType(lines []map[string]any, typ string) []map[string]any {
	var out []map[string]any
	for _, l := range lines {
		if l["type"] == typ {
			out = append(out, l)
		}
	}
	return out
}

// The whole input arrives at once and ends (as when the SDK closes stdin
// before any turn ran): initialize is answered first, every message gets
// its result in order, a control request indusr does not know is
// answered with an error naming it, a line that is not JSON is passed
// over, a message with a block indusr cannot carry ends its turn in an
// error result that says so, and the process exits 0.
func TestInputReadToItsEnd(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	srv := fakemodel.Start(t, fakemodel.Say("one"), fakemodel.Say("two"))
	stdin := strings.Join([]string{
		`{"request_id":"init1","type":"control_request","request":{"subtype":"initialize","systemPrompt":[""]}}`,
		`{"type":"user","session_id":"","parent_tool_use_id":null,"message":{"role":"user","content":[{"type":"text","text":"first"}]}}`,
		`this is not json`,
		`{"request_id":"odd1","type":"control_request","request":{"subtype":"frobnicate"}}`,
		`{"type":"user","session_id":"","parent_tool_use_id":null,"message":{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AAAA"}}]}}`,
		`{"type":"user","session_id":"","parent_tool_use_id":null,"message":{"role":"user","content":"second"}}`,
	}, "\n") + "\n"
	lines, stderr, code := indusr(t, dir, srv, stdin, sdkPrefix...)
	if code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	if lines[0]["type"] != "control_response" {
		t.Errorf("the first line is not initialize's answer: %v", lines[0])
	}
	var odd map[string]any
	for _, l := range ofType(lines, "control_response") {
		r, _ := l["response"].(map[string]any)
		if r["request_id"] == "odd1" {
			odd = r
		}
	}
	if odd == nil || odd["subtype"] != "error" || !strings.Contains(odd["error"].(string), "frobnicate") {
		t.Errorf("the unknown request was answered %v", odd)
	}
	results := ofType(lines, "result")
	if len(results) != 3 {
		t.Fatalf("results = %v", results)
	}
	if results[0]["result"] != "one" || results[2]["result"] != "two" {
		t.Errorf("results out of order: %v", results)
	}
	bad := results[1]
	errs, _ := bad["errors"].([]any)
	if bad["is_error"] != true || len(errs) != 1 || !strings.Contains(errs[0].(string), `"image"`) {
		t.Errorf("the image message's result = %v", bad)
	}
	if !strings.Contains(stderr, "not JSON") {
		t.Errorf("stderr does not mention the line passed over: %s", stderr)
	}
}

// Every flag the TypeScript SDK passes (the list of its probe with many
// options, in one-token form) is taken; a flag outside the list is
// refused with an error naming it.
func TestSDKFlags(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	srv := fakemodel.Start(t)
	all := append(append([]string{}, sdkPrefix...),
		"--max-thinking-tokens=2048", "--effort=high", "--max-turns=3", "--max-budget-usd=1.5", "--model="+model,
		"--betas=context-1m-2025-08-07", "--allowedTools=Read,Bash(git:*)", "--disallowedTools=WebFetch",
		"--tools=Read,Bash", "--mcp-config", `{"mcpServers":{}}`, "--setting-sources=project", "--strict-mcp-config",
		"--permission-mode=acceptEdits", "--fallback-model=claude-y", "--add-dir=/tmp", "--no-session-persistence",
		"--debug-to-stderr", "--thinking=adaptive", `--json-schema={"type":"object"}`, "--permission-prompt-tool=stdio",
		"--allow-dangerously-skip-permissions", "--include-hook-events", "--session-mirror", "--await-initialize",
		"--setting-sources=", "--thinking-display=summarized", "--task-budget=5", "--agent=reviewer", "--debug",
		"--channels=x", "--project-config-root=/tmp", "--plugin-dir=/tmp", "--managed-settings", "{}")
	_, stderr, code := indusr(t, dir, srv, "", all...)
	if code != 0 {
		t.Fatalf("the SDK's flags: exit %d, stderr:\n%s", code, stderr)
	}
	_, stderr, code = indusr(t, dir, srv, "", append(append([]string{}, sdkPrefix...), "--foo", "bar")...)
	if code != 2 || !strings.Contains(stderr, "--foo") {
		t.Errorf("an unknown flag: exit %d, stderr %q; want 2 naming --foo", code, stderr)
	}
}

// A message with shouldQuery false joins the conversation without a turn
// of its own: the next turn's model call carries it, and only that turn
// has a result.
func TestMessageWithoutTurn(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	srv := fakemodel.Start(t, fakemodel.Say("both read"))
	stdin := `{"type":"user","shouldQuery":false,"message":{"role":"user","content":"context: the sky is green"}}` + "\n" +
		`{"type":"user","message":{"role":"user","content":"what colour is the sky?"}}` + "\n"
	lines, stderr, code := indusr(t, dir, srv, stdin, sdkPrefix...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if r := ofType(lines, "result"); len(r) != 1 || r[0]["result"] != "both read" {
		t.Fatalf("results = %v", r)
	}
	body := string(srv.Requests()[0].Body)
	if !strings.Contains(body, "the sky is green") || !strings.Contains(body, "what colour is the sky?") {
		t.Errorf("the model call = %s", body)
	}
}

// --tools as the SDK writes it: Claude Code's names choose our tools,
// and an empty list leaves no built-in tool.
func TestToolsFlag(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	srv := fakemodel.Start(t, fakemodel.Say("a"), fakemodel.Say("b"))
	msg := `{"type":"user","message":{"role":"user","content":"hi"}}` + "\n"
	tools := func(args ...string) []any {
		lines, stderr, code := indusr(t, dir, srv, msg, append(append([]string{}, sdkPrefix...), args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		for _, l := range lines {
			if l["type"] == "system" && l["subtype"] == "init" {
				got, _ := l["tools"].([]any)
				return got
			}
		}
		t.Fatalf("%v: no system/init", args)
		return nil
	}
	if got := tools("--tools=Read,Glob"); fmt.Sprint(got) != "[read find]" {
		t.Errorf("--tools=Read,Glob: tools %v", got)
	}
	if got := tools("--tools="); len(got) != 0 {
		t.Errorf("--tools=: tools %v", got)
	}
}
