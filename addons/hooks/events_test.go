package hooks

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/indusagi/induscode/addons"
	"github.com/indusagi/induscode/tool"
)

// Every way a PreToolUse hook can answer, and what the caller sees: the
// tool runs or not, the result's text, the faults shown to the user.
func TestPreToolUseAnswers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		command string
		runs    bool
		result  string // in the result's text
		fault   string // in a fault, "" for none
	}{
		{"exit 0 silent", `exit 0`, true, `tool ran with {"command":"ls"}`, ""},
		{"exit 2 blocks with stderr", `echo "rm is not allowed here" >&2; exit 2`, false, "addon guard blocked the call of bash: rm is not allowed here", ""},
		{"exit 2 without a reason", `exit 2`, false, "exited 2 without a reason on stderr", ""},
		{"exit 1 blocks nothing", `echo oops >&2; exit 1`, true, "tool ran", `exited 1, an error that blocks nothing (exit 2 blocks): "oops"`},
		{"exit 3 blocks nothing", `exit 3`, true, "tool ran", "exited 3"},
		{"json deny", `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"not today"}}'`, false, "blocked the call of bash: not today", ""},
		{"json deny no reason", `echo '{"hookSpecificOutput":{"permissionDecision":"deny"}}'`, false, "denied by the PreToolUse hook", ""},
		{"json ask", `echo '{"hookSpecificOutput":{"permissionDecision":"ask","permissionDecisionReason":"sure?"}}'`, false, "sure? (it asked for the user's confirmation, which this host cannot ask for", ""},
		{"json allow", `echo '{"hookSpecificOutput":{"permissionDecision":"allow"}}'`, true, "tool ran", ""},
		{"json defer", `echo '{"hookSpecificOutput":{"permissionDecision":"defer"}}'`, true, "tool ran", ""},
		{"older block", `echo '{"decision":"block","reason":"old style"}'`, false, "blocked the call of bash: old style", ""},
		{"older approve", `echo '{"decision":"approve","reason":"fine"}'`, true, "tool ran", ""},
		{"specific wins over older", `echo '{"decision":"approve","hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"newer form"}}'`, false, "newer form", ""},
		{"continue false", `echo '{"continue":false,"stopReason":"halt"}'`, false, "blocked the call of bash: halt", "stopped the call: halt"},
		{"continue false beats allow", `echo '{"continue":false,"hookSpecificOutput":{"permissionDecision":"allow"}}'`, false, "asked to stop", "stopped the call"},
		{"system message", `echo '{"systemMessage":"linted"}'`, true, "tool ran", "says: linted"},
		{"updated input", `echo '{"hookSpecificOutput":{"permissionDecision":"allow","updatedInput":{"command":"ls -a"}}}'`, true, `tool ran with {"command":"ls -a"}`, ""},
		{"garbage text", `echo 'hello there'; echo more`, true, "tool ran", `exited 0 but it printed text that is not a JSON reply, which decides nothing: "hello there …"`},
		{"broken json", `echo '{"decision": '`, true, "tool ran", "its JSON reply does not parse"},
		{"unknown decision", `echo '{"hookSpecificOutput":{"permissionDecision":"maybe"}}'`, true, "tool ran", `permissionDecision "maybe"`},
		{"updatedInput not an object", `echo '{"hookSpecificOutput":{"updatedInput":"ls"}}'`, true, `tool ran with {"command":"ls"}`, "not a JSON object"},
		{"command not found", `no-such-command-xyz`, true, "tool ran", "exited 127"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := newRig(t, nil, mustHook(t, "PreToolUse", "Bash", tt.command, 0))
			res := r.call(context.Background(), "bash", `{"command":"ls"}`)
			if ran := r.ran.Load() == 1; ran != tt.runs {
				t.Errorf("tool ran: %v, want %v (result %q)", ran, tt.runs, res.PlainText())
			}
			if !strings.Contains(res.PlainText(), tt.result) || res.IsError == tt.runs {
				t.Errorf("result (error %v) %q, want one containing %q", res.IsError, res.PlainText(), tt.result)
			}
			faults := r.faults.text()
			if tt.fault == "" && faults != "" || !strings.Contains(faults, tt.fault) {
				t.Errorf("faults %q, want %q", faults, tt.fault)
			}
		})
	}
}

// A hook's ask goes to the user when the host can ask: a yes runs the
// call, a no refuses it with the user's words, and an ask outranks
// another hook's allow.
func TestPreToolUseAskReachesTheUser(t *testing.T) {
	t.Parallel()
	ask := `echo '{"hookSpecificOutput":{"permissionDecision":"ask","permissionDecisionReason":"this deletes files"}}'`
	allow := `echo '{"hookSpecificOutput":{"permissionDecision":"allow"}}'`
	for _, tt := range []struct {
		name   string
		answer string // the asker's refusal, "" for yes
		runs   bool
		result string
	}{
		{"user says yes", "", true, "tool ran"},
		{"user says no", "the user said no: not on main", false, "permission needed for the call of bash: the user said no: not on main"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := newRig(t, nil, mustHook(t, "PreToolUse", "Bash", allow, 0), mustHook(t, "PreToolUse", "Bash", ask, 0))
			var asked []string
			ctx := addons.WithAsker(context.Background(), func(_ context.Context, why string) string {
				asked = append(asked, why)
				return tt.answer
			})
			res := r.call(ctx, "bash", `{"command":"rm -r build"}`)
			if len(asked) != 1 || asked[0] != "this deletes files" {
				t.Errorf("the user was asked %q, want once with the hook's reason", asked)
			}
			if ran := r.ran.Load() == 1; ran != tt.runs {
				t.Errorf("tool ran: %v, want %v (result %q)", ran, tt.runs, res.PlainText())
			}
			if !strings.Contains(res.PlainText(), tt.result) || res.IsError == tt.runs {
				t.Errorf("result (error %v) %q, want one containing %q", res.IsError, res.PlainText(), tt.result)
			}
		})
	}
}

// The request on stdin follows Claude Code's contract, and a hook from
// Claude Code's settings sees Claude Code's tool names.
func TestPreToolUseRequest(t *testing.T) {
	t.Parallel()
	ours := mustHook(t, "tool:before", "bash", `cat > ours.json; echo "$CLAUDE_PROJECT_DIR" > dir.txt`, 0)
	claude := mustHook(t, "PreToolUse", "Bash", `cat > claude.json`, 0)
	claude.Claude = true
	r := newRig(t, nil, ours, claude)
	r.call(context.Background(), "bash", `{"command":"rm -rf /tmp/x"}`)
	var in map[string]any
	if err := json.Unmarshal([]byte(readFile(t, filepath.Join(r.dir, "ours.json"))), &in); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"session_id": "s-1", "transcript_path": "", "cwd": r.dir, "hook_event_name": "PreToolUse",
		"tool_name": "bash", "tool_input": map[string]any{"command": "rm -rf /tmp/x"}}
	for k, v := range want {
		if got, _ := json.Marshal(in[k]); string(got) != mustJSON(v) {
			t.Errorf("%s = %s, want %s", k, got, mustJSON(v))
		}
	}
	if got := strings.TrimSpace(readFile(t, filepath.Join(r.dir, "dir.txt"))); got != r.dir {
		t.Errorf("CLAUDE_PROJECT_DIR %q, want %q", got, r.dir)
	}
	if got := readFile(t, filepath.Join(r.dir, "claude.json")); !strings.Contains(got, `"tool_name":"Bash"`) {
		t.Errorf("a settings hook saw %s, want tool_name Bash", got)
	}
}

// A hook from Claude Code's settings finds the arguments under Claude
// Code's names (tool_input.file_path of Write) and may rewrite them in
// those names; the tool gets its own names back. A hook of ours sees ours.
func TestClaudeHookSeesClaudeArgumentNames(t *testing.T) {
	t.Parallel()
	claude := mustHook(t, "PreToolUse", "Write", `cat > claude.json; echo '{"hookSpecificOutput":{"permissionDecision":"allow","updatedInput":{"file_path":"safe.txt","content":"x"}}}'`, 0)
	claude.Claude = true
	ours := mustHook(t, "tool:before", "write", `cat > ours.json`, 0)
	r := newRig(t, nil, ours, claude)
	res := r.call(context.Background(), "write", `{"path":"a.txt","content":"x"}`)
	if res.IsError {
		t.Fatal(res.PlainText())
	}
	var got map[string]any
	json.Unmarshal(r.args.Load().(json.RawMessage), &got)
	if got["path"] != "safe.txt" || got["file_path"] != nil {
		t.Errorf("the tool ran with %v, want path safe.txt (the hook's rewrite in our names)", got)
	}
	// Claude Code sends absolute paths; hook scripts compare them with
	// $CLAUDE_PROJECT_DIR.
	if in := readFile(t, filepath.Join(r.dir, "claude.json")); !strings.Contains(in, `"tool_name":"Write"`) || !strings.Contains(in, `"file_path":`+mustJSON(filepath.Join(r.dir, "a.txt"))) {
		t.Errorf("the Claude Code hook saw %s, want tool_name Write and tool_input.file_path absolute", in)
	}
	if in := readFile(t, filepath.Join(r.dir, "ours.json")); !strings.Contains(in, `"path":"a.txt"`) {
		t.Errorf("our hook saw %s, want tool_input.path", in)
	}
	// Input the renaming cannot apply to is passed on as it is.
	for _, raw := range []string{`[1]`, `{"file_path":"/x","path":"/y"}`, `not json`} {
		if out := ClaudeInput("write", json.RawMessage(raw), "/w"); string(out) != raw {
			t.Errorf("ClaudeInput(%s) = %s", raw, out)
		}
	}
}

// Every argument a Claude Code tool takes is found under Claude Code's
// name, paths absolute; a rewrite in those names comes back in ours.
func TestClaudeArgumentNamesBothWays(t *testing.T) {
	t.Parallel()
	dir := "/work/space"
	for _, tc := range []struct {
		tool, ours, claude string
	}{
		{"bash", `{"command":"make","timeout_ms":5000,"run_in_background":true,"description":"Build"}`,
			`{"command":"make","description":"Build","run_in_background":true,"timeout":5000}`},
		{"grep", `{"pattern":"TODO","path":"src","glob":"*.go","case_insensitive":true,"output_mode":"content","line_numbers":true,"before":1,"after":2,"context":3,"type":"go","head_limit":9,"multiline":true}`,
			`{"-A":2,"-B":1,"-C":3,"-i":true,"-n":true,"glob":"*.go","head_limit":9,"multiline":true,"output_mode":"content","path":"/work/space/src","pattern":"TODO","type":"go"}`},
		{"read", `{"path":"a/b.go","offset":10,"limit":20}`, `{"file_path":"/work/space/a/b.go","limit":20,"offset":10}`},
		{"write", `{"path":"./n.txt","content":"hi"}`, `{"content":"hi","file_path":"/work/space/n.txt"}`},
		{"edit", `{"path":"/abs/e.go","old_string":"a","new_string":"b","replace_all":true}`,
			`{"file_path":"/abs/e.go","new_string":"b","old_string":"a","replace_all":true}`},
		{"find", `{"pattern":"**/*.go","path":"cmd"}`, `{"path":"/work/space/cmd","pattern":"**/*.go"}`},
		{"ls", `{"path":".","ignore":["*.log"]}`, `{"ignore":["*.log"],"path":"/work/space"}`},
		{"websearch", `{"query":"go","allowed_domains":["go.dev"]}`, `{"query":"go","allowed_domains":["go.dev"]}`},
	} {
		got := ClaudeInput(tc.tool, json.RawMessage(tc.ours), dir)
		if !sameJSON(t, got, tc.claude) {
			t.Errorf("%s: the hook sees %s, want %s", tc.tool, got, tc.claude)
		}
		// updatedInput in Claude Code's names reaches the tool in ours.
		back := OurInput(tc.tool, got)
		var want map[string]any
		json.Unmarshal([]byte(tc.ours), &want)
		if f, ok := pathFields[tc.tool]; ok {
			if p, ok := want[f].(string); ok {
				want[f], _ = tool.ResolveIn(dir, p)
			}
		}
		if !sameJSON(t, back, mustJSON(want)) {
			t.Errorf("%s: the rewrite reaches the tool as %s, want %s", tc.tool, back, mustJSON(want))
		}
	}
}

func sameJSON(t *testing.T, a json.RawMessage, b string) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatalf("%s: %v", a, err)
	}
	if err := json.Unmarshal([]byte(b), &y); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return mustJSON(x) == mustJSON(y)
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// A matcher selects tools as Claude Code's does; a hook that does not
// match never runs.
func TestMatcher(t *testing.T) {
	t.Parallel()
	tests := []struct {
		matcher string
		tool    string
		want    bool
	}{
		{"", "bash", true},
		{"*", "fs__read", true},
		{"bash", "bash", true},
		{"Bash", "bash", true},
		{"Bash", "bash_extra", false},
		{"bas", "bash", false},
		{"Edit|Write", "write", true},
		{"Edit|Write", "edit", true},
		{"Edit|Write", "read", false},
		{"edit | write", "write", false}, // not a plain list: a regex with spaces
		{"Notebook.*", "NotebookEdit", true},
		{"mcp__fs__.*", "fs__read", true},
		{"mcp__fs__.*", "git__log", false},
		{"^fs__", "fs__read", true},
		{"Glob", "find", true},
	}
	for _, tt := range tests {
		h := mustHook(t, "PreToolUse", tt.matcher, "true", 0)
		if got := h.Matches(tt.tool); got != tt.want {
			t.Errorf("matcher %q on %s: %v, want %v", tt.matcher, tt.tool, got, tt.want)
		}
	}
	r := newRig(t, nil, mustHook(t, "PreToolUse", "Edit|Write", "exit 2", 0))
	if res := r.call(context.Background(), "read", `{}`); res.IsError {
		t.Errorf("a hook on Edit|Write refused read: %q", res.PlainText())
	}
	if res := r.call(context.Background(), "write", `{}`); !res.IsError {
		t.Errorf("a hook on Edit|Write let write run: %q", res.PlainText())
	}
}

// Hooks of one event run in parallel: each waits for the other to have
// started, which only two hooks running at once can both see. Run one
// after the other, the first gives up and blocks the call.
func TestHooksRunInParallel(t *testing.T) {
	t.Parallel()
	meet := func(mine, theirs string) string {
		return `touch ` + mine + `; for i in $(seq 1500); do [ -e ` + theirs + ` ] && exit 0; sleep 0.01; done; ` +
			`echo '{"decision":"block","reason":"` + theirs + ` never ran beside ` + mine + `"}'`
	}
	r := newRig(t, nil,
		mustHook(t, "PreToolUse", "", meet("a.started", "b.started"), 30*time.Second),
		mustHook(t, "PreToolUse", "", meet("b.started", "a.started"), 30*time.Second))
	if res := r.call(context.Background(), "bash", `{}`); res.IsError || r.ran.Load() != 1 {
		t.Errorf("two hooks that wait for each other: error %v %q, want both to meet and the tool to run", res.IsError, res.PlainText())
	}
}

// A deny wins over an allow whatever the order, and identical commands
// run once.
func TestStrongestVerdictAndDedup(t *testing.T) {
	t.Parallel()
	count := `echo x >> count.txt`
	r := newRig(t, nil,
		mustHook(t, "PreToolUse", "", `echo '{"hookSpecificOutput":{"permissionDecision":"allow"}}'`, 0),
		mustHook(t, "PreToolUse", "bash", `echo '{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"no"}}'`, 0),
		mustHook(t, "PreToolUse", "", count, 0),
		mustHook(t, "PreToolUse", "*", count, 0))
	if res := r.call(context.Background(), "bash", `{}`); !res.IsError || !strings.Contains(res.PlainText(), ": no.") {
		t.Errorf("allow and deny: %q, want the deny", res.PlainText())
	}
	if got := readFile(t, filepath.Join(r.dir, "count.txt")); got != "x\n" {
		t.Errorf("an identical command ran %d times, want once", strings.Count(got, "x"))
	}
}

// A hook past its timeout is killed with what it started, blocks nothing
// and is reported.
func TestHookTimeout(t *testing.T) {
	t.Parallel()
	r := newRig(t, nil, mustHook(t, "PreToolUse", "", `sleep 60 & echo $! > child.pid; wait; exit 2`, 2*time.Second))
	start := time.Now()
	res := r.call(context.Background(), "bash", `{}`)
	if took := time.Since(start); res.IsError || took > 15*time.Second {
		t.Errorf("after %s: %v %q, want the call to go on after about 2 s", took, res.IsError, res.PlainText())
	}
	if f := r.faults.text(); !strings.Contains(f, "timed out after 2s; it blocked nothing") {
		t.Errorf("faults %q, want the timeout", f)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(readFile(t, filepath.Join(r.dir, "child.pid"))))
	if err != nil {
		t.Fatal(err)
	}
	// The hook's own sleep would live a minute: it must be gone well before.
	deadline := time.Now().Add(10 * time.Second)
	for !processGone(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("process %d that the hook started is still running after its timeout", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// processGone reports whether pid has exited (a zombie waiting for its
// reaper counts as gone).
func processGone(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	_, after, ok := strings.Cut(string(b), ") ")
	return !ok || strings.HasPrefix(after, "Z") || strings.HasPrefix(after, "X")
}

// Cancelling the call kills its hooks and refuses the call.
func TestHookCancelled(t *testing.T) {
	t.Parallel()
	r := newRig(t, nil, mustHook(t, "PreToolUse", "", `sleep 5`, 0))
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	res := r.call(ctx, "bash", `{}`)
	if took := time.Since(start); !res.IsError || !strings.Contains(res.PlainText(), "cancelled while its PreToolUse hooks ran") || took > 10*time.Second || r.ran.Load() != 0 {
		t.Errorf("after %s: %q (tool ran %d), want a refusal at once", took, res.PlainText(), r.ran.Load())
	}
}

// PostToolUse hooks read the result and what they say reaches the model.
func TestPostToolUse(t *testing.T) {
	t.Parallel()
	r := newRig(t, nil,
		mustHook(t, "PostToolUse", "bash", `cat > post.json; echo '{"decision":"block","reason":"lint failed","hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"see lint.log"}}'`, 0),
		mustHook(t, "tool:after", "Bash", `echo "tests are red" >&2; exit 2`, 0))
	res := r.call(context.Background(), "bash", `{"command":"make"}`)
	text := res.PlainText()
	for _, want := range []string{`tool ran with {"command":"make"}`, "PostToolUse hook: lint failed", "PostToolUse hook: see lint.log", "PostToolUse hook: tests are red"} {
		if !strings.Contains(text, want) {
			t.Errorf("result %q lacks %q", text, want)
		}
	}
	if res.IsError {
		t.Errorf("a post hook turned a result into an error")
	}
	post := readFile(t, filepath.Join(r.dir, "post.json"))
	if !strings.Contains(post, `"tool_response":{"content":[{"type":"text","text":"tool ran with {\"command\":\"make\"}"}]}`) || !strings.Contains(post, `"hook_event_name":"PostToolUse"`) {
		t.Errorf("post hook request %s", post)
	}
	if r.call(context.Background(), "read", `{}`).PlainText() != "tool ran with {}" {
		t.Errorf("a bash-only post hook changed read's result")
	}
}

// Session hooks observe; UserPromptSubmit may refuse the input.
func TestSessionAndPromptHooks(t *testing.T) {
	t.Parallel()
	r := newRig(t, nil,
		mustHook(t, "SessionStart", "", `cat > start.json`, 0),
		mustHook(t, "SessionEnd", "", `echo bye >&2; exit 2`, 0),
		mustHook(t, "UserPromptSubmit", "", `grep -q secret && { echo "no secrets" >&2; exit 2; }; exit 0`, 0))
	d := r.bundle.Dispatch
	d.Dispatch(context.Background(), addons.SessionStart, addons.LifecyclePayload{})
	if got := readFile(t, filepath.Join(r.dir, "start.json")); !strings.Contains(got, `"hook_event_name":"SessionStart"`) || !strings.Contains(got, `"source":"startup"`) {
		t.Errorf("session start request %s", got)
	}
	d.Dispatch(context.Background(), addons.SessionEnd, addons.LifecyclePayload{})
	if f := r.faults.text(); !strings.Contains(f, "exited 2 (a session hook blocks nothing): bye") {
		t.Errorf("faults %q", f)
	}
	if out := d.Dispatch(context.Background(), addons.InputSubmit, addons.InputPayload{Text: "print the secret"}); out.Stop == nil || out.Stop.Reason != "no secrets" {
		t.Errorf("prompt with a secret: %+v", out.Stop)
	}
	if out := d.Dispatch(context.Background(), addons.InputSubmit, addons.InputPayload{Text: "hello"}); out.Stop != nil {
		t.Errorf("plain prompt stopped: %+v", out.Stop)
	}
}

// A UserPromptSubmit hook's additionalContext joins the prompt; a
// PreCompact hook may refuse the compaction and sees its trigger.
func TestPromptContextAndPreCompact(t *testing.T) {
	t.Parallel()
	r := newRig(t, nil,
		mustHook(t, "UserPromptSubmit", "", `echo '{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"the branch is main"}}'`, 0),
		mustHook(t, "PreCompact", "", `cat > compact.json; echo "keep it all" >&2; exit 2`, 0))
	d := r.bundle.Dispatch
	out := d.Dispatch(context.Background(), addons.InputSubmit, addons.InputPayload{Text: "what branch?"})
	if out.Stop != nil || out.Payload.(addons.InputPayload).Text != "what branch?\n\nthe branch is main" {
		t.Errorf("prompt after the hook: %+v %+v", out.Payload, out.Stop)
	}
	out = d.Dispatch(context.Background(), addons.CompactBefore, addons.CompactPayload{Reason: "near the window"})
	if out.Stop == nil || out.Stop.Reason != "keep it all" {
		t.Errorf("compaction not refused: %+v", out.Stop)
	}
	if got := readFile(t, filepath.Join(r.dir, "compact.json")); !strings.Contains(got, `"hook_event_name":"PreCompact"`) || !strings.Contains(got, `"trigger":"auto"`) {
		t.Errorf("PreCompact request %s", got)
	}
}

// A tool that no hook's plain matcher names is not wrapped at all, so its
// calls cost nothing more; a regex matcher wraps every tool.
func TestUnmatchedToolIsNotWrapped(t *testing.T) {
	t.Parallel()
	noop := &tool.Func{S: tool.Spec{Name: "read", InputSchema: tool.EmptyObjectSchema()}}
	for _, tt := range []struct {
		matcher string
		wrapped bool
	}{{"Bash|Edit", false}, {"mcp__fs__list", false}, {"", true}, {"Ba.*", true}} {
		h := addons.NewHost(addons.HostOptions{})
		h.LoadAddon(Addon("a", []Hook{mustHook(t, "PreToolUse", tt.matcher, "true", 0)}, Options{}))
		if wrapped := h.Bundle().Wrap(noop) != tool.Tool(noop); wrapped != tt.wrapped {
			t.Errorf("matcher %q: read wrapped %v, want %v", tt.matcher, wrapped, tt.wrapped)
		}
	}
}

// A host that gave no runner gets a fault, not a panic, and the call
// goes on.
func TestNoRunner(t *testing.T) {
	t.Parallel()
	log := &faultLog{}
	h := addons.NewHost(addons.HostOptions{})
	h.LoadAddon(Addon("a", []Hook{mustHook(t, "PreToolUse", "", "exit 2", 0)}, Options{Report: log.add}))
	noop := &tool.Func{S: tool.Spec{Name: "read", InputSchema: tool.EmptyObjectSchema()},
		Fn: func(context.Context, json.RawMessage, *tool.Env) tool.Result { return tool.Text("ran") }}
	if res := h.Bundle().Wrap(noop).Run(context.Background(), nil, nil); res.IsError || !strings.Contains(log.text(), "no runner") {
		t.Errorf("result %q, faults %q", res.PlainText(), log.text())
	}
}

// A PreToolUse hook's allow permits a call that needs the user's
// permission where no one can be asked; without it, or with a deny
// beside it, the call is refused with the host's text.
func TestPreToolUseAllowGivesPermission(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, command string
		runs          bool
	}{
		{"allow", `echo '{"hookSpecificOutput":{"permissionDecision":"allow"}}'`, true},
		{"older approve", `echo '{"decision":"approve"}'`, true},
		{"no verdict", `exit 0`, false},
		{"defer", `echo '{"hookSpecificOutput":{"permissionDecision":"defer"}}'`, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := newRig(t, nil, mustHook(t, "PreToolUse", "Bash", tt.command, 0))
			ctx := addons.NeedPermission(context.Background(), func(context.Context) string { return "ask the user first" })
			res := r.call(ctx, "bash", `{"command":"ls"}`)
			if ran := r.ran.Load() == 1; ran != tt.runs {
				t.Fatalf("tool ran: %v, want %v (%q)", ran, tt.runs, res.PlainText())
			}
			if !tt.runs && (!res.IsError || !strings.HasPrefix(res.PlainText(), addons.PermissionRefused+"bash: ask the user first")) {
				t.Errorf("refusal %q", res.PlainText())
			}
		})
	}
}

// A Stop hook acts only where the agent stops: a block sends its reason
// on (send_message) and the next stop says stop_hook_active; exit 2 does
// the same with stderr; a hook that lets it stop sends nothing.
func TestStopHookKeepsTheAgentGoing(t *testing.T) {
	t.Parallel()
	r := newRig(t, nil, mustHook(t, "Stop", "",
		`cat >> stop.jsonl; echo >> stop.jsonl; n=$(wc -l < stop.jsonl); `+
			`if [ "$n" = 1 ]; then echo '{"decision":"block","reason":"run the tests first"}'; `+
			`elif [ "$n" = 2 ]; then echo "and lint" >&2; exit 2; fi`, 0))
	d := r.bundle.Dispatch
	d.Dispatch(context.Background(), addons.TurnEnd, addons.LifecyclePayload{Session: "s"})
	if fileExists(filepath.Join(r.dir, "stop.jsonl")) {
		t.Fatal("the Stop hook ran at a turn:end where the agent goes on")
	}
	for range 3 {
		d.Dispatch(context.Background(), addons.TurnEnd, addons.LifecyclePayload{Session: "s", Stopping: true})
	}
	if got := r.messages(); len(got) != 2 || got[0] != "Stop hook: run the tests first" || got[1] != "Stop hook: and lint" {
		t.Errorf("sent %q", got)
	}
	lines := strings.Split(strings.TrimSpace(readFile(t, filepath.Join(r.dir, "stop.jsonl"))), "\n")
	if len(lines) != 3 || !strings.Contains(lines[0], `"hook_event_name":"Stop"`) || !strings.Contains(lines[0], `"stop_hook_active":false`) ||
		!strings.Contains(lines[1], `"stop_hook_active":true`) || !strings.Contains(lines[2], `"stop_hook_active":true`) {
		t.Errorf("requests:\n%s", strings.Join(lines, "\n"))
	}
}

// A SessionStart hook's additionalContext is sent to the model.
func TestSessionStartContextIsSent(t *testing.T) {
	t.Parallel()
	r := newRig(t, nil, mustHook(t, "SessionStart", "", `echo '{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"the build uses make"}}'`, 0))
	r.bundle.Dispatch.Dispatch(context.Background(), addons.SessionStart, addons.LifecyclePayload{})
	if got := r.messages(); len(got) != 1 || got[0] != "the build uses make" {
		t.Errorf("sent %q; faults %s", got, r.faults.text())
	}
}
