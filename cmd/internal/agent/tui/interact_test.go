package tui

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/indusagi/induscode/addons"
	"github.com/indusagi/induscode/conductor"
	"github.com/indusagi/induscode/conductor/toolrun"
	"github.com/indusagi/induscode/deck/checkpoint"
	"github.com/indusagi/induscode/provider"
)

func use(id, name, input string) provider.Block {
	return provider.Block{Kind: provider.ToolUseBlock, ID: id, Name: name, Input: json.RawMessage(input)}
}

func results(bs ...provider.Block) conductor.Event {
	return conductor.ToolResults{Message: provider.Message{Role: provider.User, Blocks: bs}}
}

func result(id, text string, isErr bool) provider.Block {
	return provider.Block{Kind: provider.ToolResultBlock, ToolUseID: id, Text: text, IsError: isErr}
}

// ask puts a question to the model as the bridge does and returns the
// channel its answer comes on.
func (x *tm) ask(tool, input string) chan conductor.Answer {
	reply := make(chan conductor.Answer, 1)
	x.send(askMsg{q: conductor.Question{Tool: tool, Input: json.RawMessage(input)}, reply: reply})
	return reply
}

func answered(t *testing.T, c chan conductor.Answer) conductor.Answer {
	t.Helper()
	select {
	case a := <-c:
		return a
	default:
		t.Fatal("the question was not answered")
	}
	return conductor.Answer{}
}

// An edit waits at the question: the proposed change shows as a diff;
// 1 allows it once, and the diff of what the edit did shows under its
// line once it ran.
func TestEditAllowedOnceShowsItsDiff(t *testing.T) {
	x := newTM(t, 80, 24)
	os.WriteFile(filepath.Join(x.f.dir, "greet.txt"), []byte("hello world\n"), 0o644)
	x.ev(started())
	x.submit("say hello there")
	x.ev(conductor.TurnStarted{N: 1})
	edit := `{"path":"greet.txt","old_string":"world","new_string":"there"}`
	x.send(eventMsg{e: said(use("t1", "edit", edit)), before: map[string]fileState{"t1": readState(x.f.dir, "greet.txt")}})
	reply := x.ask("edit", edit)
	x.golden("ask_edit")
	x.key("1")
	if a := answered(t, reply); !a.Allow {
		t.Fatalf("1 answered %+v", a)
	}
	os.WriteFile(filepath.Join(x.f.dir, "greet.txt"), []byte("hello there\n"), 0o644)
	x.now = x.now.Add(1500 * time.Millisecond)
	x.ev(results(result("t1", "Edited greet.txt: 1 replacement.", false)), conductor.TurnEnded{N: 1})
	x.golden("edit_done")
}

// 2 records a rule for the session and says so; 3 asks for a reason,
// which is the refusal the model reads.
func TestAlwaysRecordsARuleAndDenyTellsWhy(t *testing.T) {
	x := newTM(t, 80, 24)
	x.submit("run the tests")
	reply := x.ask("bash", `{"command":"go test ./..."}`)
	x.key("2")
	if a := answered(t, reply); !a.Allow {
		t.Fatalf("2 answered %+v", a)
	}
	if len(x.f.rules) != 1 || x.f.rules[0] != "Bash(go test:*)" {
		t.Fatalf("rules %v", x.f.rules)
	}
	if !strings.Contains(x.screen(), "Allowed Bash(go test:*) for the rest of this session") {
		t.Errorf("the rule is not shown:\n%s", x.screen())
	}
	reply = x.ask("bash", `{"command":"rm -rf build"}`)
	x.key("3")
	for _, r := range "keep the build" {
		x.send(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	x.golden("ask_reason")
	x.key("enter")
	if a := answered(t, reply); a.Allow || a.Reason != "keep the build" {
		t.Fatalf("the refusal was %+v", a)
	}
	if x.m.ask != nil || !x.m.in.m.Focused() {
		t.Error("the input did not get the keys back")
	}
}

// Esc at a question refuses the call and interrupts the turn.
func TestEscAtAQuestionInterrupts(t *testing.T) {
	x := newTM(t, 80, 24)
	cmd := x.submit("go")
	reply := x.ask("bash", `{"command":"make"}`)
	x.key("esc")
	if a := answered(t, reply); a.Allow {
		t.Fatal("esc allowed the call")
	}
	ctxDone := make(chan struct{})
	x.f.run = func(ctx context.Context, _ string) (*conductor.Result, error) {
		<-ctx.Done()
		close(ctxDone)
		return &conductor.Result{Subtype: conductor.Cancelled, IsError: true}, nil
	}
	msg := cmd() // the run: its context was cancelled by esc
	<-ctxDone
	x.send(msg)
	if !strings.Contains(x.screen(), "Interrupted") {
		t.Errorf("no interruption shown:\n%s", x.screen())
	}
}

// Esc during a run cancels its context; Ctrl-C twice quits.
func TestEscInterruptsAndCtrlCTwiceQuits(t *testing.T) {
	x := newTM(t, 80, 24)
	var seen context.Context
	x.f.run = func(ctx context.Context, _ string) (*conductor.Result, error) {
		seen = ctx
		<-ctx.Done()
		return &conductor.Result{Subtype: conductor.Cancelled, IsError: true}, nil
	}
	cmd := x.submit("sleep")
	done := make(chan tea.Msg, 1)
	go func() { done <- cmd() }()
	x.now = x.now.Add(2 * time.Second)
	x.golden("running")
	x.key("esc")
	msg := <-done
	if seen.Err() == nil {
		t.Fatal("esc did not cancel the run")
	}
	x.send(msg)
	if x.m.running {
		t.Fatal("still running")
	}
	if cmd := x.key("ctrl+c"); cmd != nil {
		t.Fatal("one ctrl+c quit")
	}
	if !strings.Contains(x.screen(), "Ctrl-C again") {
		t.Errorf("no hint after one ctrl+c:\n%s", x.screen())
	}
	cmd = x.key("ctrl+c")
	if cmd == nil {
		t.Fatal("two ctrl+c did not quit")
	}
	if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Fatal("two ctrl+c did not quit")
	}
}

// Shift-Tab walks the modes in Claude Code's order, shown in the status
// line.
func TestShiftTabCyclesModes(t *testing.T) {
	x := newTM(t, 80, 24)
	var got []string
	for i := 0; i < 4; i++ {
		x.key("shift+tab")
		got = append(got, string(x.f.Mode()))
		if !strings.HasPrefix(lastLine(x.screen()), string(x.f.Mode())+" ·") {
			t.Errorf("the status line does not show %s: %q", x.f.Mode(), lastLine(x.screen()))
		}
	}
	if strings.Join(got, ",") != "acceptEdits,plan,bypassPermissions,default" {
		t.Errorf("modes %v", got)
	}
}

func lastLine(s string) string { return s[strings.LastIndexByte(s, '\n')+1:] }

// A plan is shown for approval; 2 approves it and accepts its edits.
func TestPlanApproval(t *testing.T) {
	x := newTM(t, 80, 24)
	x.f.mode = conductor.Plan
	x.submit("plan the rename")
	reply := x.ask(conductor.PlanQuestion, `{"plan":"## Rename\n\n1. rename greet.txt\n2. update the README"}`)
	x.golden("plan")
	x.key("2")
	if a := answered(t, reply); !a.Allow {
		t.Fatal("2 did not approve")
	}
	if x.f.Mode() != conductor.AcceptEdits {
		t.Errorf("mode %s after approve and accept edits", x.f.Mode())
	}
}

// Thinking folds to a line; results fold to a few lines; Ctrl-O opens
// both. A running bash shows its latest output line.
func TestFoldingAndLiveOutput(t *testing.T) {
	x := newTM(t, 80, 24)
	x.submit("count")
	x.ev(conductor.TurnStarted{N: 1},
		conductor.Delta{Delta: provider.Delta{Kind: provider.ThinkingDelta, Text: "Counting needs a loop.\nA shell loop will do."}},
		said(provider.Block{Kind: provider.ThinkingBlock, Text: "Counting needs a loop.\nA shell loop will do."},
			use("b1", "bash", `{"command":"for i in 1 2 3 4 5 6 7; do echo $i; done"}`)))
	x.send(progressMsg{text: "4"})
	x.golden("bash_running")
	x.now = x.now.Add(2 * time.Second)
	x.ev(results(result("b1", "1\n2\n3\n4\n5\n6\n7\nexit code 0", false)))
	x.golden("folded")
	x.key("ctrl+o")
	x.golden("expanded")
}

// A refused call shows as refused.
func TestRefusedCall(t *testing.T) {
	x := newTM(t, 80, 24)
	x.submit("delete")
	x.ev(said(use("r1", "bash", `{"command":"rm -rf /"}`)))
	x.ev(results(provider.Block{Kind: provider.ToolResultBlock, ToolUseID: "r1", Text: "The user refused the call: no", IsError: true, Failure: toolrun.Refused}))
	if s := x.screen(); !strings.Contains(s, "⊘ bash rm -rf /  refused") {
		t.Errorf("not shown as refused:\n%s", s)
	}
}

// A prompt sent during a run joins the conversation before the model's
// next call.
func TestPromptDuringARunIsSent(t *testing.T) {
	x := newTM(t, 80, 24)
	x.submit("first")
	x.submit("also this")
	if len(x.f.sent) != 1 || x.f.sent[0] != "also this" {
		t.Errorf("sent %v", x.f.sent)
	}
	if !strings.Contains(x.screen(), "> (queued) also this") {
		t.Errorf("the queued prompt is not shown:\n%s", x.screen())
	}
}

// The slash commands: /help lists the built-ins, the addons' commands
// and the skills; /model switches; /compact compacts; an addon's command
// runs; an unknown one is named.
func TestSlashCommands(t *testing.T) {
	x := newTM(t, 80, 40)
	x.f.commands = []addons.Command{{Name: "deploy", Summary: "ship the build", Addon: "ship"}}
	x.ev(conductor.Started{SessionID: "01JTESTSESSION0000000042", Model: "anthropic/claude-sonnet-4-5", Mode: conductor.Default, Skills: []string{"review"}})
	x.submit("/help")
	s := x.screen()
	for _, want := range []string{"/rewind [n]", "/deploy — ship the build (addon ship)", "/review — skill", "shift+tab"} {
		if !strings.Contains(s, want) {
			t.Errorf("/help lacks %q:\n%s", want, s)
		}
	}
	x.submit("/model anthropic/claude-haiku-4-5")
	if x.f.model != "anthropic/claude-haiku-4-5" || !strings.Contains(lastLine(x.screen()), "claude-haiku-4-5") {
		t.Errorf("/model: %q, status %q", x.f.model, lastLine(x.screen()))
	}
	if cmd := x.submit("/compact"); cmd != nil {
		x.send(cmd())
	}
	if x.f.compacts != 1 {
		t.Error("/compact did not compact")
	}
	if cmd := x.submit("/deploy now"); cmd != nil {
		x.send(cmd())
	}
	if len(x.f.ran) != 1 || x.f.ran[0] != "deploy now" || !strings.Contains(x.screen(), "ran deploy") {
		t.Errorf("the addon command: %v\n%s", x.f.ran, x.screen())
	}
	x.submit("/nosuch")
	if !strings.Contains(x.screen(), "Unknown command /nosuch") {
		t.Errorf("unknown command not named:\n%s", x.screen())
	}
	if len(x.f.prompts) != 0 {
		t.Errorf("a slash command reached the model: %v", x.f.prompts)
	}
	if cmd := x.submit("/review the diff"); cmd == nil {
		t.Error("a skill's /id did not run as a prompt")
	}
}

// /rewind shows the diff of the last prompt's changes and, once
// confirmed, puts the files back.
func TestRewindRestoresFiles(t *testing.T) {
	x := newTM(t, 80, 24)
	store := checkpoint.NewMemStore()
	x.f.store = store
	path := filepath.Join(x.f.dir, "greet.txt")
	before := "hello world\n"
	os.WriteFile(path, []byte("hello there\n"), 0o644)
	sum := sha256.Sum256([]byte(before))
	if _, _, err := store.Record("n1", "edit", path, checkpoint.Prior{Exists: true, Content: strings.NewReader(before), Mode: 0o644,
		Hash: hex.EncodeToString(sum[:]), Size: int64(len(before))}); err != nil {
		t.Fatal(err)
	}
	after := sha256.Sum256([]byte("hello there\n"))
	store.Settle("n1", path, checkpoint.Outcome{Exists: true, Hash: hex.EncodeToString(after[:])})
	x.submit("change it")
	x.send(runDoneMsg{res: &conductor.Result{Subtype: conductor.Success, Node: "n1"}})
	x.submit("/rewind")
	x.golden("rewind_confirm")
	x.key("y")
	if b, _ := os.ReadFile(path); string(b) != before {
		t.Errorf("the rewind left %q", b)
	}
	if !strings.Contains(x.screen(), "Rewound: restored 1 file") {
		t.Errorf("no report:\n%s", x.screen())
	}
	x.submit("/rewind")
	if !strings.Contains(x.screen(), "No prompt of this terminal changed files") {
		t.Errorf("a second rewind:\n%s", x.screen())
	}
}

// At 60 columns and after resizes no line is wider than the terminal.
func TestNarrowAndResize(t *testing.T) {
	x := newTM(t, 60, 24)
	x.submit(strings.Repeat("a long prompt that wraps ", 6))
	x.ev(said(provider.Block{Kind: provider.TextBlock, Text: answer}, use("b", "bash", `{"command":"`+strings.Repeat("echo wide ", 20)+`"}`)))
	x.ev(results(result("b", strings.Repeat("output that is wider than sixty columns ", 4), false)))
	x.golden("narrow_60")
	for _, w := range []int{100, 40, 60} {
		x.send(tea.WindowSizeMsg{Width: w, Height: 20})
		x.golden(fmt.Sprintf("resized_%d", w))
	}
}
