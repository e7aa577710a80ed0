package agent_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/indusagi/induscode/cmd/internal/agent"
	"github.com/indusagi/induscode/cmd/internal/cli"
	"github.com/indusagi/induscode/internal/fakemodel"
	"github.com/indusagi/induscode/internal/jail"
	"github.com/indusagi/induscode/internal/testpeer"
)

func TestMain(m *testing.M) {
	jail.Main() // the test binary confines the children of sandboxed sessions
	testpeer.SystemProgramsFirst()
	testscript.Main(m, map[string]func(){
		"indusr":       func() { os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
		"indusr-agent": func() { os.Exit(agent.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
	})
}

// The keys of Claude Code's messages that indusr leaves out, by message
// type, because they describe something indusr has no notion of (README
// lists them): Claude Code's version, fast mode, effort, ultrathink,
// analytics and feedback switches, its memory folders, sandbox flag and
// messaging socket, view mode, the API's context management, the time
// to the first token, the queue of a session's turns, and the usage
// since the last result of a many-turn session.
var leftOut = map[string][]string{
	"system/init": {"additional_directories", "analytics_disabled", "claude_code_version", "fast_mode_disabled_reason",
		"fast_mode_state", "memory_paths", "messaging_socket_path", "original_cwd", "per_turn_effort_active",
		"product_feedback_disabled", "sandbox_enabled", "served_by_anthropic", "terminal_slash_commands",
		"ultrathink_available", "ultrathink_typed_raises", "view_mode"},
	"assistant.message": {"context_management"},
	"result": {"api_error_status", "begun_message_ids", "fast_mode_disabled_reason", "fast_mode_state",
		"first_content_frame_ms", "model_usage_since_last_result", "queued_turn_count", "safety_stops",
		"time_to_request_ms", "ttft_ms", "ttft_stream_ms"},
	"stream_event": {"api_message_id", "thinking_display", "ttft_ms"},
}

// onlyClaude are the messages Claude Code prints of things indusr does
// not have: the request status and the per-turn effort switch.
var onlyClaude = []string{"system/status", "system/per_turn_effort_changed"}

// shapePrompt is the task: read notes.txt, edit it (refused: default
// mode, no rule allows it), run echo (allowed), answer.
const shapePrompt = "Change hello to goodbye in notes.txt."

// shapeScript plays the model for both programs, in the names of their
// tools: Claude Code's (Read, Edit, Bash, with absolute paths) when the
// request offers them, else indusr's. Claude Code's side requests (those
// without the prompt) get a short text.
func shapeScript(dir string) func(int, fakemodel.Request) fakemodel.Reply {
	return func(_ int, req fakemodel.Request) fakemodel.Reply {
		if !bytes.Contains(req.Body, []byte(shapePrompt)) {
			return fakemodel.Say("ok")
		}
		claude := bytes.Contains(req.Body, []byte(`"name":"Read"`))
		calls := [][2]string{
			{"read", `{"path":"notes.txt"}`},
			{"edit", `{"path":"notes.txt","old_string":"hello","new_string":"goodbye"}`},
			{"bash", `{"command":"echo hi-out"}`},
		}
		if claude {
			file, _ := json.Marshal(filepath.Join(dir, "notes.txt"))
			calls = [][2]string{
				{"Read", `{"file_path":` + string(file) + `}`},
				{"Edit", `{"file_path":` + string(file) + `,"old_string":"hello","new_string":"goodbye"}`},
				{"Bash", `{"command":"echo hi-out","description":"Say hi"}`},
			}
		}
		if n := bytes.Count(req.Body, []byte(`"tool_result"`)); n < len(calls) {
			return fakemodel.Call(calls[n][0], calls[n][1])
		}
		return fakemodel.Say("all done")
	}
}

// shapeRun runs one program on the task with args and returns its
// messages, one a line.
func shapeRun(t *testing.T, claude bool, args ...string) []map[string]any {
	t.Helper()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("hello\n"), 0o644)
	srv := fakemodel.Start(t)
	srv.Respond(shapeScript(dir))
	var cmd *exec.Cmd
	if claude {
		home := t.TempDir()
		cmd = exec.Command(testpeer.NPMFile(t, "@anthropic-ai/claude-code/bin/claude.exe"),
			append([]string{"-p", shapePrompt, "--allowedTools", "Bash(echo:*)"}, args...)...)
		cmd.Env = []string{"HOME=" + home, "TMPDIR=" + home, "PATH=" + os.Getenv("PATH"),
			"ANTHROPIC_BASE_URL=" + srv.URL, "ANTHROPIC_API_KEY=sk-test-not-a-key", "DISABLE_TELEMETRY=1",
			"DISABLE_AUTOUPDATER=1", "DISABLE_ERROR_REPORTING=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1"}
	} else {
		cmd = exec.Command("indusr", append([]string{"-p", shapePrompt, "--allowedTools", "Bash(echo:*)",
			"--model", "anthropic/claude-test", "--no-mcp", "--no-addons"}, args...)...)
		cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+filepath.Join(dir, ".xdg"), "INDUSR_NO_LSP=1",
			"ANTHROPIC_API_KEY=test", "ANTHROPIC_BASE_URL="+srv.URL)
	}
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, _ := cmd.Output() // --max-turns exits 1 in both
	var ms []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("claude %v: a line is no JSON (%v): %s\nstderr: %s", claude, err, sc.Bytes(), stderr.Bytes())
		}
		ms = append(ms, m)
	}
	if len(ms) == 0 {
		t.Fatalf("claude %v %v printed nothing; stderr: %s", claude, args, stderr.Bytes())
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "notes.txt")); string(b) != "hello\n" {
		t.Errorf("claude %v: notes.txt = %q; the edit was to be refused", claude, b)
	}
	return ms
}

// keySets collects the keys each type of message carries (system
// messages by subtype; an assistant message's API message apart), over
// every message of the type.
func keySets(ms []map[string]any) map[string]map[string]bool {
	sets := map[string]map[string]bool{}
	add := func(kind string, m map[string]any) {
		if sets[kind] == nil {
			sets[kind] = map[string]bool{}
		}
		for k := range m {
			sets[kind][k] = true
		}
	}
	for _, m := range ms {
		kind, _ := m["type"].(string)
		if st, ok := m["subtype"].(string); ok && kind == "system" {
			kind += "/" + st
		}
		add(kind, m)
		if msg, ok := m["message"].(map[string]any); ok && kind == "assistant" {
			add("assistant.message", msg)
		}
	}
	return sets
}

func asString(v any) string { s, _ := v.(string); return s }

func sorted(set map[string]bool) []string {
	var out []string
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// The same task through the real claude -p and indusr -p, in stream-json
// (with the streamed answer), json, and json stopped by --max-turns: each
// type of message carries the same keys in both, but for the documented
// exceptions above, and both list the refused edit in
// permission_denials.
func TestShapesMatchClaudeCode(t *testing.T) {
	t.Parallel()
	for name, args := range map[string][]string{
		"stream-json": {"--output-format", "stream-json", "--verbose", "--include-partial-messages"},
		"json":        {"--output-format", "json"},
		"max-turns":   {"--output-format", "json", "--max-turns", "1"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			theirs, ours := shapeRun(t, true, args...), shapeRun(t, false, args...)
			want, got := keySets(theirs), keySets(ours)
			for kind, keys := range want {
				if slices.Contains(onlyClaude, kind) {
					continue
				}
				if got[kind] == nil {
					t.Errorf("indusr printed no %s message; Claude Code's has %v", kind, sorted(keys))
					continue
				}
				for k := range keys {
					if !got[kind][k] && !slices.Contains(leftOut[kind], k) {
						t.Errorf("%s: indusr lacks %s", kind, k)
					}
				}
				for k := range got[kind] {
					if !keys[k] {
						t.Errorf("%s: indusr has %s, which Claude Code's has not", kind, k)
					}
				}
			}
			for kind := range got {
				if want[kind] == nil {
					t.Errorf("indusr printed a %s message, which Claude Code does not", kind)
				}
			}
			last := func(ms []map[string]any) map[string]any { return ms[len(ms)-1] }
			if name == "max-turns" {
				for who, r := range map[string]map[string]any{"claude": last(theirs), "indusr": last(ours)} {
					if r["subtype"] != "error_max_turns" || r["num_turns"] != float64(2) {
						t.Errorf("%s: %v", who, r)
					}
				}
				return
			}
			for who, r := range map[string]map[string]any{"claude": last(theirs), "indusr": last(ours)} {
				d, _ := r["permission_denials"].([]any)
				if len(d) != 1 || !strings.EqualFold(d[0].(map[string]any)["tool_name"].(string), "edit") {
					t.Errorf("%s: permission_denials %v, want the refused edit", who, r["permission_denials"])
				}
			}
			if name == "stream-json" {
				// bash's output is its tool_use_result's stdout in both.
				for who, ms := range map[string][]map[string]any{"claude": theirs, "indusr": ours} {
					ran := false
					for _, m := range ms {
						if r, ok := m["tool_use_result"].(map[string]any); ok && strings.Contains(asString(r["stdout"]), "hi-out") {
							ran = true
						}
					}
					if !ran {
						t.Errorf("%s: no tool_use_result has echo's output as stdout", who)
					}
				}
			}
			if t.Failed() {
				b, _ := json.Marshal(ours)
				t.Logf("indusr printed: %s", b)
			}
		})
	}
}
