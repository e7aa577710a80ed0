package serve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	neturl "net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/indusagi/induscode/internal/fakemodel"
	"github.com/indusagi/induscode/internal/testpeer"
)

// claudeCode is the real Claude Code (npm @anthropic-ai/claude-code,
// pinned in testdata/npm), or a skip (a failure under CI).
func claudeCode(t *testing.T) string {
	t.Helper()
	return testpeer.NPMFile(t, "@anthropic-ai/claude-code/bin/claude.exe")
}

// claudeEnv is the environment Claude Code runs in for a test: a home of
// its own (its settings and the MCP servers added), the scripted model
// server, and no traffic beyond it.
func claudeEnv(home, model string) []string {
	return []string{
		"HOME=" + home,
		"TMPDIR=" + home, // its sockets too
		"PATH=" + os.Getenv("PATH"),
		"ANTHROPIC_BASE_URL=" + model,
		"ANTHROPIC_API_KEY=sk-test-not-a-key",
		"DISABLE_TELEMETRY=1",
		"DISABLE_AUTOUPDATER=1",
		"DISABLE_ERROR_REPORTING=1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
	}
}

// claudeScript is the model's side of the conversation: read a file,
// edit it, start a background process, grep, then read the process's
// output back, each through induscode's tools as Claude Code names them
// (mcp__ind__TOOL); the step is the number of tool results so far.
// Claude Code's side requests (those without the prompt) get a short
// text.
func claudeScript(t *testing.T) func(int, fakemodel.Request) fakemodel.Reply {
	return func(_ int, req fakemodel.Request) fakemodel.Reply {
		var body struct {
			Messages []struct {
				Content json.RawMessage
			}
		}
		json.Unmarshal(req.Body, &body)
		if len(body.Messages) == 0 || !bytes.Contains(body.Messages[0].Content, []byte(claudePrompt)) {
			return fakemodel.Say("ok")
		}
		var results []string
		for _, m := range body.Messages {
			var blocks []struct {
				Type    string
				Content json.RawMessage
			}
			if json.Unmarshal(m.Content, &blocks) != nil {
				continue
			}
			for _, b := range blocks {
				if b.Type == "tool_result" {
					results = append(results, string(b.Content))
				}
			}
		}
		switch len(results) {
		case 0:
			return fakemodel.Call("mcp__ind__read", `{"path":"notes.txt"}`)
		case 1:
			return fakemodel.Call("mcp__ind__edit", `{"path":"notes.txt","old_string":"hello","new_string":"goodbye"}`)
		case 2:
			return fakemodel.Call("mcp__ind__process", `{"action":"start","command":"echo started-ok; sleep 0.3; echo later-line"}`)
		case 3:
			return fakemodel.Call("mcp__ind__grep", `{"pattern":"goodbye"}`)
		case 4:
			id := "p1"
			if m := regexp.MustCompile(`Started (p\d+)`).FindStringSubmatch(results[2]); m != nil {
				id = m[1]
			}
			return fakemodel.Call("mcp__ind__process", `{"action":"wait","id":"`+id+`"}`)
		}
		return fakemodel.Say("all done")
	}
}

// claudePrompt is the user's request; the model's script answers the
// requests that carry it.
const claudePrompt = "Change hello to goodbye in notes.txt and check it."

// claudeRun is what one `claude -p` run printed (stream-json).
type claudeRun struct {
	servers map[string]string // system/init: MCP server -> status
	results []string          // tool results' text, in order
	errors  []string          // tool results marked is_error
	final   string            // the result message
	lines   []string
}

func parseClaude(t *testing.T, out []byte) claudeRun {
	t.Helper()
	run := claudeRun{servers: map[string]string{}}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		line := sc.Text()
		run.lines = append(run.lines, line)
		var m struct {
			Type, Subtype string
			MCPServers    []struct{ Name, Status string } `json:"mcp_servers"`
			Message       struct {
				Content json.RawMessage
			}
			Result string
		}
		if json.Unmarshal([]byte(line), &m) != nil {
			continue
		}
		switch {
		case m.Type == "system" && m.Subtype == "init":
			for _, s := range m.MCPServers {
				run.servers[s.Name] = s.Status
			}
		case m.Type == "user":
			var blocks []struct {
				Type    string
				IsError bool `json:"is_error"`
				Content json.RawMessage
			}
			json.Unmarshal(m.Message.Content, &blocks)
			for _, b := range blocks {
				if b.Type != "tool_result" {
					continue
				}
				run.results = append(run.results, string(b.Content))
				if b.IsError {
					run.errors = append(run.errors, string(b.Content))
				}
			}
		case m.Type == "result":
			run.final = line
		}
	}
	return run
}

// runClaude adds the server with `claude mcp add ind ADD...` and runs one
// prompt in dir.
func runClaude(t *testing.T, dir, home, model string, add ...string) claudeRun {
	t.Helper()
	claude := claudeCode(t)
	env := claudeEnv(home, model)
	mcpAdd := exec.Command(claude, append([]string{"mcp", "add", "ind"}, add...)...)
	mcpAdd.Dir, mcpAdd.Env = dir, env
	if out, err := mcpAdd.CombinedOutput(); err != nil {
		t.Fatalf("claude mcp add: %v\n%s", err, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	tools := []string{"mcp__ind__read", "mcp__ind__edit", "mcp__ind__grep", "mcp__ind__process"}
	cmd := exec.CommandContext(ctx, claude, "-p", claudePrompt,
		"--output-format", "stream-json", "--verbose", "--allowedTools", strings.Join(tools, ","))
	cmd.Dir, cmd.Env = dir, env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	run := parseClaude(t, out)
	if err != nil {
		t.Fatalf("claude -p: %v\nstderr: %s\nstdout:\n%s", err, stderr.Bytes(), strings.Join(run.lines, "\n"))
	}
	return run
}

// checkClaude asserts what a user of Claude Code sees: the server
// connected when the session started, every call succeeded, the file
// changed and the background process's output came back.
func checkClaude(t *testing.T, dir string, run claudeRun) {
	t.Helper()
	if got := run.servers["ind"]; got != "connected" {
		t.Errorf("system/init: server ind is %q, want connected (servers: %v)", got, run.servers)
	}
	if len(run.results) != 5 || len(run.errors) > 0 {
		t.Errorf("%d tool results, %d failed, want 5 that succeed: %q", len(run.results), len(run.errors), run.results)
	}
	// The model sees each result's text: the process's output read back
	// (Claude Code hands the model a result's structuredContent in place
	// of its content when there is one).
	want := []string{"hello", "goodbye", "Started p", "notes.txt", "later-line"}
	for i, w := range want {
		if i < len(run.results) && !strings.Contains(run.results[i], w) {
			t.Errorf("tool result %d = %s, want it to hold %q", i+1, run.results[i], w)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "notes.txt")); string(b) != "goodbye\n" {
		t.Errorf("notes.txt = %q after the edit, want %q", b, "goodbye\n")
	}
	if !strings.Contains(run.final, `"all done"`) || strings.Contains(run.final, `"is_error":true`) {
		t.Errorf("result: %s", run.final)
	}
	if t.Failed() {
		t.Logf("Claude Code's output:\n%s", strings.Join(run.lines, "\n"))
	}
}

// The real Claude Code mounts `indusr serve` over stdio, as README's first
// client line says, and uses its tools. The server runs behind a relay
// (tee on both sides) whose transcript shows the listen stream
// acknowledged under Claude Code's own id for it.
func TestClaudeCodeOverStdio(t *testing.T) {
	t.Parallel()
	dir := workspace(t, map[string]string{"notes.txt": "hello\n"})
	model := fakemodel.Start(t)
	model.Respond(claudeScript(t))
	relay := t.TempDir()
	in, out := filepath.Join(relay, "in.jsonl"), filepath.Join(relay, "out.jsonl")
	script := fmt.Sprintf(`tee %q | %q --cwd %q --no-mcp serve | tee %q`, in, indusr, dir, out)
	run := runClaude(t, dir, t.TempDir(), model.URL, "--", "sh", "-c", script)
	checkClaude(t, dir, run)

	// The relay's transcript: each listen request's id comes back as the
	// acknowledgement's subscriptionId, as written.
	inLines, outLines := readLines(t, in), readLines(t, out)
	var listens []string
	for _, l := range inLines {
		var m struct {
			ID     json.RawMessage
			Method string
		}
		if json.Unmarshal([]byte(l), &m) == nil && m.Method == "subscriptions/listen" {
			listens = append(listens, string(m.ID))
		}
	}
	if len(listens) == 0 {
		t.Fatalf("Claude Code opened no listen stream; it sent:\n%s", strings.Join(inLines, "\n"))
	}
	for _, id := range listens {
		acked := false
		for _, l := range outLines {
			if strings.Contains(l, `"notifications/subscriptions/acknowledged"`) && subscriptionID(t, l) == id {
				acked = true
			}
		}
		if !acked {
			t.Errorf("no acknowledgement names the listen stream %s; the server sent:\n%s", id, strings.Join(outLines, "\n"))
		}
	}
}

// Over Streamable HTTP too, where Claude Code speaks the stateless
// protocol of 2026-07-28.
func TestClaudeCodeOverHTTP(t *testing.T) {
	t.Parallel()
	dir := workspace(t, map[string]string{"notes.txt": "hello\n"})
	model := fakemodel.Start(t)
	model.Respond(claudeScript(t))
	url, _ := startHTTP(t, sessionOptions(dir), HTTPOptions{})
	// A relay in front of the server notes the protocol version of each
	// request.
	target, _ := neturl.Parse(url)
	target.Path = "" // the relay's requests name the endpoint
	var mu sync.Mutex
	versions := map[string]int{}
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.FlushInterval = -1 // event streams pass at once
	relay := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		versions[r.Header.Get("Mcp-Protocol-Version")]++
		mu.Unlock()
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(relay.Close)
	run := runClaude(t, dir, t.TempDir(), model.URL, "--transport", "http", relay.URL+Endpoint)
	checkClaude(t, dir, run)
	mu.Lock()
	defer mu.Unlock()
	t.Logf("requests by protocol version: %v", versions)
	if versions["2026-07-28"] == 0 {
		t.Errorf("Claude Code sent no request of the 2026-07-28 protocol: %v", versions)
	}
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}
