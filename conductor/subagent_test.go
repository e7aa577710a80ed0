package conductor_test

import (
	"cmp"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/indusagi/induscode/addons"
	"github.com/indusagi/induscode/conductor"
	"github.com/indusagi/induscode/internal/fakemodel"
	"github.com/indusagi/induscode/internal/testtree"
	"github.com/indusagi/induscode/provider/connect"
	"github.com/indusagi/induscode/transcript"
)

// wire is what a test reads of a request: the tools offered, the
// number of messages, and the whole body as text.
type wire struct {
	tools []string
	msgs  int
	body  string
}

func readWire(t *testing.T, r fakemodel.Request) wire {
	var v struct {
		Tools    []struct{ Name string }
		Messages []json.RawMessage
	}
	if err := json.Unmarshal(r.Body, &v); err != nil {
		t.Errorf("request body: %v", err)
	}
	w := wire{msgs: len(v.Messages), body: string(r.Body)}
	for _, tl := range v.Tools {
		w.tools = append(w.tools, tl.Name)
	}
	return w
}

// parent reports whether a request is the main agent's: a subagent is
// never offered the task card.
func (w wire) parent() bool { return slices.Contains(w.tools, "task") }

// events collects a run's events, from whichever goroutine.
type events struct {
	mu  sync.Mutex
	all []conductor.Event
}

func (e *events) add(ev conductor.Event) {
	e.mu.Lock()
	e.all = append(e.all, ev)
	e.mu.Unlock()
}

func (e *events) list() []conductor.Event {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.all)
}

// A parent with no delegate runner configured delegates to a reviewer
// written for Claude Code (.claude/agents/reviewer.md, read-only
// tools): the reviewer is offered only those tools, its call of edit is
// refused as outside its deck, its answer comes back as the task's
// result, the SubagentStart and SubagentStop hooks see it, and the two
// transcripts exist and name each other.
func TestTaskRunsProfileInProcess(t *testing.T) {
	dir := t.TempDir()
	testtree.Write(t, dir, map[string]string{
		"a.txt": "alpha\n",
		".claude/agents/reviewer.md": "---\nname: reviewer\ndescription: Reviews code; never edits.\ntools: Read, Grep, Glob\n" +
			"model: inherit\ncolor: green\n---\nYou are REVIEWER-PROMPT. Report what you find.\n",
		"hooklog/.keep": "",
		".indus/addons/log/manifest.toml": "id = \"log\"\nversion = \"1.0.0\"\n[sandbox]\nwrite = [\"hooklog\"]\n" +
			"[[hook]]\nevent = \"SessionStart\"\ncommand = 'cat >> \"$CLAUDE_PROJECT_DIR/hooklog/hooks.log\"; echo >> \"$CLAUDE_PROJECT_DIR/hooklog/hooks.log\"'\n" +
			"[[hook]]\nevent = \"SubagentStart\"\ncommand = 'cat >> \"$CLAUDE_PROJECT_DIR/hooklog/hooks.log\"; echo >> \"$CLAUDE_PROJECT_DIR/hooklog/hooks.log\"'\n" +
			"[[hook]]\nevent = \"SubagentStop\"\ncommand = 'cat >> \"$CLAUDE_PROJECT_DIR/hooklog/hooks.log\"; echo >> \"$CLAUDE_PROJECT_DIR/hooklog/hooks.log\"'\n",
	})
	srv := fakemodel.Start(t)
	var childReqs []wire
	var mu sync.Mutex
	srv.Respond(func(n int, r fakemodel.Request) fakemodel.Reply {
		w := readWire(t, r)
		if w.parent() {
			if w.msgs == 1 {
				return fakemodel.Reply{Blocks: []fakemodel.Block{{Kind: "tool_use", ID: "toolu_task1", Name: "task",
					Input: `{"objective":"Review a.txt","agent":"reviewer"}`}}}
			}
			return fakemodel.Say("The reviewer is done.")
		}
		mu.Lock()
		childReqs = append(childReqs, w)
		mu.Unlock()
		if w.msgs == 1 {
			return fakemodel.Call("edit", `{"path":"a.txt","old_string":"alpha","new_string":"beta"}`)
		}
		return fakemodel.Say("REVIEW: a.txt says alpha; nothing to fix.")
	})
	var ev events
	var turnsMu sync.Mutex
	var turns []string // the agent of each turn:start, "-" for the main one
	o := conductor.Options{Model: modelOf("anthropic"), OnEvent: ev.add}
	o.Session.Addons = []*addons.Addon{{ID: "turns", Register: func(api addons.API) error {
		api.On(addons.TurnStart, addons.Observer(func(_ context.Context, p addons.Payload) {
			turnsMu.Lock()
			turns = append(turns, cmp.Or(p.(addons.LifecyclePayload).Agent, "-"))
			turnsMu.Unlock()
		}))
		return nil
	}}}
	o.Session.Dir, o.Session.NoMCP, o.Session.TrustHooks = dir, true, true
	o.Open = connect.Opener(connect.Config{Getenv: env(srv), MaxRetries: -1})
	c, err := conductor.Open(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var desc string
	for _, d := range c.Tools() {
		if d.Name == "task" {
			desc = d.Description
		}
	}
	if !strings.Contains(desc, "reviewer (Reviews code; never edits.; tools Read, Grep, Glob)") || !strings.Contains(desc, conductor.GeneralPurpose) {
		t.Errorf("the task card's roster does not list the reviewer and the general agent: %s", desc)
	}
	res, err := c.Run(context.Background(), "get a.txt reviewed")
	if err != nil || res.IsError {
		t.Fatalf("run: %v %+v", err, res)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(got) != "alpha\n" {
		t.Errorf("a.txt is %q: the reviewer's edit ran", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(childReqs) != 2 {
		t.Fatalf("the reviewer made %d model calls, want 2", len(childReqs))
	}
	if got := childReqs[0].tools; !slices.Equal(got, []string{"read", "grep", "find"}) {
		t.Errorf("the reviewer was offered %v, want read, grep, find", got)
	}
	if !strings.Contains(childReqs[0].body, "REVIEWER-PROMPT") {
		t.Error("the reviewer's prompt is not in its system prompt")
	}
	if !strings.Contains(childReqs[1].body, "edit is not in the deck of agent reviewer") {
		t.Errorf("the refusal of edit is not what the reviewer read: %s", childReqs[1].body)
	}
	// The parent's second call carries the task's result: the answer and
	// the child's transcript id.
	reqs := srv.Requests()
	last := readWire(t, reqs[len(reqs)-1])
	if !last.parent() || !strings.Contains(last.body, "REVIEW: a.txt says alpha") {
		t.Fatalf("the parent did not get the reviewer's answer: %s", last.body)
	}
	m := regexp.MustCompile(`agent_id: ([0-9a-f-]{36})`).FindStringSubmatch(last.body)
	if m == nil {
		t.Fatalf("the task result names no agent_id: %s", last.body)
	}
	childID := m[1]
	if res.Subagents.Runs != 1 || res.Subagents.Turns != 2 {
		t.Errorf("subagent stats %+v", res.Subagents)
	}
	// The transcripts: the parent's holds the result naming the child;
	// the child's header names the parent and its call.
	_, lines, err := transcript.Open(dir, c.SessionID())
	if err != nil || !strings.Contains(mustJSON(t, lines), "agent_id: "+childID) {
		t.Errorf("the parent's transcript does not link the child (%v)", err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, ".indusvx", "transcripts", childID+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var head transcript.Line
	json.Unmarshal([]byte(strings.SplitN(string(raw), "\n", 2)[0]), &head)
	if head.Parent == nil || head.Parent.ID != c.SessionID() || head.Parent.ToolUseID != "toolu_task1" || head.Parent.Agent != "reviewer" {
		t.Errorf("the child's header links %+v, want the parent %s and its call", head.Parent, c.SessionID())
	}
	if latest, _, err := transcript.Latest(dir); err != nil || latest.ID() != c.SessionID() {
		t.Errorf("the latest conversation is not the parent's (%v)", err)
	}
	// The events mark the child's messages with the parent's call.
	var started, stopped, marked int
	for _, e := range ev.list() {
		switch e := e.(type) {
		case conductor.SubagentStarted:
			started++
		case conductor.SubagentStopped:
			stopped++
			if e.Result == nil || !strings.Contains(e.Result.Text, "REVIEW:") {
				t.Errorf("stopped event %+v", e)
			}
		case conductor.SubagentEvent:
			if _, ok := e.Event.(conductor.AssistantMessage); ok && e.ToolUseID == "toolu_task1" && e.Agent == "reviewer" {
				marked++
			}
		}
	}
	if started != 1 || stopped != 1 || marked != 2 {
		t.Errorf("events: %d started, %d stopped, %d assistant messages of the child marked; want 1, 1, 2", started, stopped, marked)
	}
	// The child's session (the parent's addons) marks its turns.
	if strings.Join(turns, " ") != "- reviewer reviewer -" {
		t.Errorf("turn:start saw agents %q, want the main agent's, the reviewer's twice, the main agent's", turns)
	}
	// The hooks, with Claude Code's fields.
	logged, _ := os.ReadFile(filepath.Join(dir, "hooklog", "hooks.log"))
	var got []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(string(logged)), "\n") {
		var v map[string]any
		if json.Unmarshal([]byte(l), &v) == nil {
			got = append(got, v)
		}
	}
	// SessionStart is the main agent's: it does not run for the subagent.
	if len(got) != 3 || got[0]["hook_event_name"] != "SessionStart" || got[1]["hook_event_name"] != "SubagentStart" || got[2]["hook_event_name"] != "SubagentStop" {
		t.Fatalf("hooks saw %s", logged)
	}
	// Hooks name the conversation the output names: the main agent's.
	for _, g := range got {
		if g["session_id"] != c.SessionID() {
			t.Errorf("%v hook saw session_id %v, want the conversation's %s", g["hook_event_name"], g["session_id"], c.SessionID())
		}
	}
	got = got[1:]
	for _, g := range got {
		if g["agent_id"] != childID || g["agent_type"] != "reviewer" {
			t.Errorf("hook input %v", g)
		}
	}
	if p, _ := got[1]["agent_transcript_path"].(string); filepath.Base(p) != childID+".jsonl" {
		t.Errorf("SubagentStop's agent_transcript_path = %v", got[1]["agent_transcript_path"])
	}
}

func mustJSON(t *testing.T, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Two subagents that read one file and then both edit it keep the
// read-before-edit rule between them: each has its own files-read state,
// so the second edit is refused as changed since it was read, and the
// file holds the first one's change.
func TestParallelSubagentsKeepReadBeforeEdit(t *testing.T) {
	dir := t.TempDir()
	testtree.Write(t, dir, map[string]string{"f.txt": "one\n"})
	srv := fakemodel.Start(t)
	firstEdited := make(chan struct{})
	var once sync.Once
	var sawMu sync.Mutex
	var secondSaw string
	srv.Respond(func(n int, r fakemodel.Request) fakemodel.Reply {
		w := readWire(t, r)
		if w.parent() {
			if w.msgs == 1 {
				return fakemodel.Call("task", `{"objective":"You are first."}`, "task", `{"objective":"You are second."}`)
			}
			return fakemodel.Say("both ran")
		}
		first := strings.Contains(w.body, "You are first.")
		switch w.msgs {
		case 1:
			return fakemodel.Call("read", `{"path":"f.txt"}`)
		case 3:
			if first {
				return fakemodel.Call("edit", `{"path":"f.txt","old_string":"one","new_string":"first"}`)
			}
			// The second edits only once the first has, having read the
			// file before.
			return fakemodel.Reply{Blocks: []fakemodel.Block{fakemodel.ToolUse("edit", `{"path":"f.txt","old_string":"one","new_string":"second"}`)}, Hold: firstEdited}
		}
		if first {
			once.Do(func() { close(firstEdited) })
		} else {
			sawMu.Lock()
			secondSaw = w.body
			sawMu.Unlock()
		}
		return fakemodel.Say("done")
	})
	c := open(t, dir, srv, conductor.Options{Mode: conductor.AcceptEdits})
	res, err := c.Run(context.Background(), "two editors")
	if err != nil || res.IsError {
		t.Fatalf("run: %v %+v", err, res)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "f.txt")); string(got) != "first\n" {
		t.Errorf("f.txt = %q, want the first subagent's change only", got)
	}
	sawMu.Lock()
	defer sawMu.Unlock()
	if !strings.Contains(secondSaw, "changed since it was read") {
		t.Errorf("the second subagent's edit was not refused as changed since it was read: %s", secondSaw)
	}
}

// A subagent never has more than its parent: a profile that asks for
// bypassPermissions under a parent in the default mode still needs
// permission to write, the parent's deny rules hold in it, and a tool the
// parent's --tools leaves out is not in its deck.
func TestSubagentNeverWiderThanParent(t *testing.T) {
	dir := t.TempDir()
	testtree.Write(t, dir, map[string]string{
		".indus/agents/yolo.toml": "permission_mode = \"bypassPermissions\"\nprompt = \"Do anything.\"\n",
	})
	srv := fakemodel.Start(t)
	var mu sync.Mutex
	var childSaw []wire
	srv.Respond(func(n int, r fakemodel.Request) fakemodel.Reply {
		w := readWire(t, r)
		if w.parent() {
			if w.msgs == 1 {
				return fakemodel.Call("task", `{"objective":"go wild","agent":"yolo"}`)
			}
			return fakemodel.Say("ok")
		}
		mu.Lock()
		childSaw = append(childSaw, w)
		mu.Unlock()
		if w.msgs == 1 {
			return fakemodel.Call("write", `{"path":"new.txt","content":"x"}`, "ls", `{"path":"."}`)
		}
		return fakemodel.Say("could not")
	})
	o := conductor.Options{Disallowed: []string{"ls"}}
	o.Session.Tools = []string{"read", "write", "ls", "task"}
	c := open(t, dir, srv, o)
	if res, err := c.Run(context.Background(), "delegate"); err != nil || res.IsError {
		t.Fatalf("run: %v %+v", err, res)
	}
	if _, err := os.Stat(filepath.Join(dir, "new.txt")); err == nil {
		t.Error("the subagent wrote a file its parent's mode needed permission for")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(childSaw) != 2 {
		t.Fatalf("%d child calls", len(childSaw))
	}
	if got := childSaw[0].tools; !slices.Equal(got, []string{"read", "write"}) {
		t.Errorf("the subagent was offered %v, want read and write (the parent's --tools less the denied ls and the task card)", got)
	}
	if !strings.Contains(childSaw[1].body, "needs permission") || !strings.Contains(childSaw[1].body, "--disallowed-tools") {
		t.Errorf("the subagent's write was not refused for permission, or ls not by the parent's rule: %s", childSaw[1].body)
	}
}
