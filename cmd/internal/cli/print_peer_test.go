package cli_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/indusagi/induscode/addons"
	"github.com/indusagi/induscode/internal/testpeer"
)

// The acceptance run against a model server that is not ours: aimock,
// an npm mock of the model APIs, replays testdata/aimock-edit-task.json
// (read, edit, a compaction its usage provokes, bash, answer) over its
// own streams of Anthropic's Messages, OpenAI's Responses and Chat
// Completions, and Gemini's API. indusr -p reaches it by each provider's
// base URL variable alone, finishes the task, and a process addon that
// logs every event it hears sees all of a task without subagents, in
// the order of the loop.
func TestPrintAgainstAimock(t *testing.T) {
	t.Parallel()
	node := testpeer.Node22(t)
	server := testpeer.NPMFile(t, "@copilotkit/aimock/dist/cli.js")
	testpeer.Command(t, "python3", "apt-get install python3")
	fixtures, err := filepath.Abs("testdata/aimock-edit-task.json")
	if err != nil {
		t.Fatal(err)
	}
	addr := testpeer.Listen(t, exec.Command(node, "-r", testpeer.Loopback(t), server, "-p", "0", "-h", "127.0.0.1", "-f", fixtures))
	for _, model := range []string{"anthropic/claude-sonnet-4-5", "openai/gpt-5", "openai-chat/gpt-5", "gemini/gemini-2.5-flash"} {
		t.Run(model, func(t *testing.T) {
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "greet.txt"), []byte("hello world\n"), 0o644)
			os.MkdirAll(filepath.Join(dir, ".indusvx"), 0o755)
			// A small window, so that the edit turn's reported usage
			// (17000 input tokens) brings on one compaction; the
			// briefing and tool definitions alone are about 12k tokens
			// by the conductor's estimate, which it uses when aimock
			// reports no usage.
			os.WriteFile(filepath.Join(dir, ".indusvx", "settings.json"), []byte(`{"contextWindow": 20000}`), 0o644)
			logger := filepath.Join(dir, ".indus", "addons", "eventlog")
			os.MkdirAll(logger, 0o755)
			// The addon's grant (write = ["events-log"]) names a folder
			// that must exist for the sandbox to grant it.
			os.MkdirAll(filepath.Join(dir, "events-log"), 0o755)
			for _, f := range []string{"manifest.toml", "eventlog.py"} {
				b, err := os.ReadFile(filepath.Join("testdata", "eventlog", f))
				if err != nil {
					t.Fatal(err)
				}
				os.WriteFile(filepath.Join(logger, f), b, 0o644)
			}
			cmd := exec.Command("indusr", "-C", dir, "--no-mcp", "-p", "change world to there in greet.txt", "--model", model,
				"--permission-mode", "acceptEdits", "--allowed-tools", "Bash(cat greet.txt)", "--output-format", "stream-json", "--verbose")
			cmd.Env = append(os.Environ(), "HOME="+dir, "XDG_CONFIG_HOME="+filepath.Join(dir, ".xdg"), "INDUSR_TRUST_HOOKS=1",
				"ANTHROPIC_BASE_URL=http://"+addr, "ANTHROPIC_API_KEY=x", "OPENAI_BASE_URL=http://"+addr+"/v1", "OPENAI_API_KEY=x",
				"GOOGLE_GEMINI_BASE_URL=http://"+addr, "GEMINI_API_KEY=x")
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			var kinds []string
			var result map[string]any
			for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
				var m map[string]any
				if err := json.Unmarshal([]byte(line), &m); err != nil {
					t.Fatalf("line %q: %v", line, err)
				}
				kind := fmt.Sprint(m["type"])
				if kind == "system" {
					kind += "/" + fmt.Sprint(m["subtype"])
				}
				kinds = append(kinds, kind)
				result = m
			}
			want := "system/init assistant user assistant user system/compact_boundary assistant user assistant result"
			if strings.Join(kinds, " ") != want {
				t.Errorf("messages %v\nwant %s", kinds, want)
			}
			if result["subtype"] != "success" || result["result"] != "Changed world to there." || result["num_turns"] != float64(4) {
				t.Errorf("result %v", result)
			}
			if b, _ := os.ReadFile(filepath.Join(dir, "greet.txt")); string(b) != "hello there\n" {
				t.Errorf("greet.txt is %q", b)
			}
			b, err := os.ReadFile(filepath.Join(dir, "events-log", "events.log"))
			if err != nil {
				logs, _ := exec.Command("sh", "-c", "cat "+dir+"/.indusvx/addon-logs/* 2>&1").CombinedOutput()
				t.Fatalf("the event log addon wrote nothing: %v\n%s", err, logs)
			}
			seen := strings.Fields(string(b))
			for _, e := range addons.Events() {
				if e == addons.SubagentStart || e == addons.SubagentStop {
					continue // the task delegates nothing to a subagent
				}
				if !slices.Contains(seen, e.String()) {
					t.Errorf("event %s never fired", e)
				}
			}
			order := []string{"session:start", "input:submit", "turn:start", "context:build", "chat:params", "chat:message",
				"tool:before", "tool:after", "turn:end", "compact:before", "compact:build", "turn:start", "shell:env", "turn:end", "session:end"}
			at := 0
			for _, s := range seen {
				if at < len(order) && s == order[at] {
					at++
				}
			}
			if at != len(order) {
				t.Errorf("events out of order: want the subsequence %v in %v", order, seen)
			}
		})
	}
}
