package cards

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/indusagi/induscode/internal/jail"
	"github.com/indusagi/induscode/internal/jail/jailtest"
	"github.com/indusagi/induscode/tool"
	"github.com/indusagi/induscode/tools/shell"
)

func TestMain(m *testing.M) {
	jail.Main()     // the test binary confines the delegates of sandboxed sessions
	jailtest.Main() // and is the escape suite's probe program
	goleak.VerifyTestMain(m)
}

func run(t *testing.T, tl tool.Tool, env *tool.Env, in map[string]any) tool.Result {
	t.Helper()
	raw, _ := json.Marshal(in)
	return tl.Run(context.Background(), raw, env)
}

func text(r tool.Result) string { return r.Blocks[0].Text }

func TestBgProcessStartPollStopList(t *testing.T) {
	t.Parallel()
	env := tool.NewEnv(t.TempDir())
	defer env.Close()
	card := BgProcess()
	if s := card.Spec(); s.Name != "bg-process" || s.ReadOnly {
		t.Fatalf("spec %+v", s)
	}

	r := run(t, card, env, map[string]any{"action": "start", "command": "echo tick-$((1+1))"})
	m := regexp.MustCompile(`^Started (p\d+) \(pid \d+\).*\nRead its new output with bg-process action=poll id=p1; stop it with action=stop id=p1\.`).FindStringSubmatch(text(r))
	if r.IsError || m == nil || strings.Contains(text(r), "tick-2") {
		t.Fatalf("start (the output is left for the first poll):\n%s", text(r))
	}
	id := m[1]
	p, err := shell.EngineOf(env).Lookup(id)
	if err != nil {
		t.Fatal(err)
	}
	<-p.Done() // its output is complete
	if polled := text(run(t, card, env, map[string]any{"action": "poll", "id": id})); !strings.Contains(polled, "--- stdout: 1 new line ---\ntick-2") {
		t.Fatalf("poll never showed the output:\n%s", polled)
	}
	if again := text(run(t, card, env, map[string]any{"action": "poll", "id": id})); !strings.HasSuffix(again, "No new output.") {
		t.Errorf("a second poll repeated output:\n%s", again)
	}
	if r := run(t, card, env, map[string]any{"action": "start", "command": "sleep 300"}); r.IsError || !strings.HasPrefix(text(r), "Started p2 ") {
		t.Fatalf("second start:\n%s", text(r))
	}
	// The process tool of the same session sees the same table.
	if out := text(run(t, shell.ProcessTool(), env, map[string]any{"action": "list"})); !strings.Contains(out, "\np1\texited\t0\t") || !strings.Contains(out, "\np2\trunning\t-\t") {
		t.Errorf("process list does not show the card's processes:\n%s", out)
	}
	if out := text(run(t, card, env, map[string]any{"action": "stop", "id": "p2"})); !strings.Contains(out, "stopped with SIGTERM") {
		t.Errorf("stop:\n%s", out)
	}
	if out := text(run(t, card, env, map[string]any{"action": "list"})); !strings.Contains(out, "\np2\tstopped\t143\t") {
		t.Errorf("list after stop:\n%s", out)
	}
	if r := run(t, card, env, map[string]any{"action": "output"}); !r.IsError || !strings.Contains(text(r), "field action") {
		t.Errorf("the card's actions are start, poll, stop, list: %s", text(r))
	}
}

// Two sessions never share processes.
func TestBgProcessSessionsAreSeparate(t *testing.T) {
	t.Parallel()
	a, b := tool.NewEnv(t.TempDir()), tool.NewEnv(t.TempDir())
	defer a.Close()
	defer b.Close()
	card := BgProcess()
	if r := run(t, card, a, map[string]any{"action": "start", "command": "sleep 300"}); r.IsError {
		t.Fatal(text(r))
	}
	if out := text(run(t, card, b, map[string]any{"action": "list"})); out != "No background processes in this session." {
		t.Errorf("session b sees a's process:\n%s", out)
	}
}

// The card drives a program in a terminal like the process tool: a bash
// question answered through input, with a wait for the question first.
func TestBgProcessTerminalInput(t *testing.T) {
	t.Parallel()
	env := tool.NewEnv(t.TempDir())
	defer env.Close()
	card := BgProcess()
	r := run(t, card, env, map[string]any{"action": "start", "pty": true, "command": `read -r -p "Name? " n; echo "hello $n"`})
	if r.IsError || !strings.Contains(text(r), "It runs in a 120x40 terminal.") || !strings.Contains(text(r), "bg-process action=poll") {
		t.Fatalf("start:\n%s", text(r))
	}
	if r = run(t, card, env, map[string]any{"action": "wait", "id": "p1", "pattern": `Name\? $`, "timeout_ms": 20000}); r.IsError || !strings.Contains(text(r), "matched") {
		t.Fatalf("wait:\n%s", text(r))
	}
	r = run(t, card, env, map[string]any{"action": "input", "id": "p1", "text": "Ada", "keys": []string{"Enter"}, "timeout_ms": 20000})
	if r.IsError || !strings.Contains(text(r), "Name? Ada\nhello Ada") || !strings.Contains(string(r.Blocks[len(r.Blocks)-1].JSON), `"reason":"exit"`) {
		t.Fatalf("input:\n%s", text(r))
	}
}
