package streamhost_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/indusagi/induscode/internal/fakemodel"
)

const model = "anthropic/claude-test"

// Two user messages streamed over one process, the first with an edit:
// the file changes, each message gets its own result in order, and the
// second model call sees the whole conversation. The SDK closes stdin as
// soon as its iterable ends, before either turn ran: indusr finishes both.
func TestStreamedTurnsWithEdit(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "add.sh"), []byte("echo $((1+1))\n"), 0o644)
	srv := fakemodel.Start(t,
		fakemodel.Call("read", `{"path":"add.sh"}`),
		fakemodel.Call("edit", `{"path":"add.sh","old_string":"1+1","new_string":"2+2"}`),
		fakemodel.Say("add.sh now adds 2+2."),
		fakemodel.Say("It prints 4."))
	run := runSDK(t, dir, srv, model, `
async function* messages() {
  yield { type: 'user', session_id: '', parent_tool_use_id: null, message: { role: 'user', content: 'make add.sh add 2+2' } };
  yield { type: 'user', session_id: '', parent_tool_use_id: null, message: { role: 'user', content: [{ type: 'text', text: 'what does it print now?' }] } };
}
for await (const m of query({ prompt: messages(), options: { pathToClaudeCodeExecutable: exe, permissionMode: 'acceptEdits' } })) log(m)`)
	results := run.byType("result")
	if len(results) != 2 || results[0]["result"] != "add.sh now adds 2+2." || results[1]["result"] != "It prints 4." {
		t.Fatalf("results = %v", results)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "add.sh")); string(b) != "echo $((2+2))\n" {
		t.Errorf("add.sh = %q", b)
	}
	if !requestHas(srv, 3, "make add.sh add 2+2") || !requestHas(srv, 3, "what does it print now?") {
		t.Errorf("the second turn's model call does not carry the conversation")
	}
	if results[0]["session_id"] != results[1]["session_id"] {
		t.Errorf("the turns have different sessions: %v, %v", results[0]["session_id"], results[1]["session_id"])
	}
}

// canUseTool refuses a bash call: the command does not run, the app saw
// Claude Code's tool name and arguments, and the model reads the app's
// message as the call's result.
func TestCanUseToolDenies(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	srv := fakemodel.Start(t,
		fakemodel.Call("bash", `{"command":"touch made.txt"}`),
		fakemodel.Say("I could not run it."))
	run := runSDK(t, dir, srv, model, `
const canUseTool = async (toolName, input) => {
  log({ asked: toolName, command: input.command });
  if (toolName === 'Bash') return { behavior: 'deny', message: 'no shell today' };
  return { behavior: 'allow', updatedInput: input };
};
for await (const m of query({ prompt: 'make a file', options: { pathToClaudeCodeExecutable: exe, canUseTool } })) log(m)`)
	if _, err := os.Stat(filepath.Join(dir, "made.txt")); err == nil {
		t.Errorf("the refused command ran")
	}
	var asked bool
	for _, l := range run.lines {
		if l["asked"] == "Bash" && l["command"] == "touch made.txt" {
			asked = true
		}
	}
	if !asked {
		t.Errorf("the app was not asked about Bash: %v", run.lines)
	}
	if !requestHas(srv, 1, "no shell today") {
		t.Errorf("the model did not see the refusal: %s", srv.Requests()[1].Body)
	}
	if r := run.byType("result"); len(r) != 1 || r[0]["result"] != "I could not run it." {
		t.Errorf("results = %v", r)
	}
}

// canUseTool allows a call with an edited input: the edited command runs.
func TestCanUseToolEditsInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	srv := fakemodel.Start(t,
		fakemodel.Call("bash", `{"command":"touch asked.txt"}`),
		fakemodel.Say("done"))
	runSDK(t, dir, srv, model, `
const canUseTool = async (toolName, input) => ({ behavior: 'allow', updatedInput: { ...input, command: 'touch edited.txt' } });
for await (const m of query({ prompt: 'make a file', options: { pathToClaudeCodeExecutable: exe, canUseTool } })) log(m)`)
	if _, err := os.Stat(filepath.Join(dir, "edited.txt")); err != nil {
		t.Errorf("the edited command did not run: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "asked.txt")); err == nil {
		t.Errorf("the model's command ran instead of the edited one")
	}
}

// A PreToolUse hook callback that denies: the call does not run, the hook
// saw Claude Code's input, and the model reads the hook's reason.
func TestPreToolUseHookBlocks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	srv := fakemodel.Start(t,
		fakemodel.Call("bash", `{"command":"touch made.txt"}`),
		fakemodel.Say("blocked, as you wish"))
	run := runSDK(t, dir, srv, model, `
const block = async (input) => {
  log({ hook: input.hook_event_name, tool: input.tool_name, command: input.tool_input.command, session: input.session_id });
  return { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'the hook says no' } };
};
for await (const m of query({ prompt: 'make a file', options: { pathToClaudeCodeExecutable: exe, permissionMode: 'bypassPermissions',
  hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [block] }] } } })) log(m)`)
	if _, err := os.Stat(filepath.Join(dir, "made.txt")); err == nil {
		t.Errorf("the blocked command ran")
	}
	results := run.byType("result")
	var hooked bool
	for _, l := range run.lines {
		if l["hook"] == "PreToolUse" && l["tool"] == "Bash" && l["command"] == "touch made.txt" && len(results) == 1 && l["session"] == results[0]["session_id"] {
			hooked = true
		}
	}
	if !hooked {
		t.Errorf("the hook did not see the call as Claude Code shows it: %v", run.lines)
	}
	if !requestHas(srv, 1, "the hook says no") {
		t.Errorf("the model did not see the hook's reason: %s", srv.Requests()[1].Body)
	}
}

// A tool of an in-process server of the app (createSdkMcpServer) is
// offered as mcp__NAME__TOOL; the model's call runs in the app and its
// result reaches the model.
// With the SDK's manifests turned off (as the Python SDK sends none),
// indusr opens the server itself over mcp_message: initialize,
// notifications/initialized, tools/list.
func TestAppMCPTool(t *testing.T) {
	for _, manifests := range []bool{true, false} {
		t.Run(fmt.Sprintf("manifests=%v", manifests), func(t *testing.T) {
			t.Parallel()
			var env []string
			if !manifests {
				env = append(env, "CLAUDE_AGENT_SDK_DISABLE_MCP_MANIFESTS=1")
			}
			testAppMCPTool(t, env...)
		})
	}
}

func testAppMCPTool(t *testing.T, env ...string) {
	dir := t.TempDir()
	srv := fakemodel.Start(t,
		fakemodel.Call("mcp__mytools__echo", `{"text":"hi"}`),
		fakemodel.Say("the tool said ECHO:hi"))
	run := runSDK(t, dir, srv, model, `
const echo = tool('echo', 'Echo text back', { text: z.string() }, async ({ text }) => ({ content: [{ type: 'text', text: 'ECHO:' + text }] }));
const mytools = createSdkMcpServer({ name: 'mytools', version: '1.0.0', tools: [echo] });
for await (const m of query({ prompt: 'echo hi', options: { pathToClaudeCodeExecutable: exe, mcpServers: { mytools },
  allowedTools: ['mcp__mytools__echo'] } })) log(m)`, env...)
	if !strings.Contains(string(srv.Requests()[0].Body), `"mcp__mytools__echo"`) {
		t.Errorf("the model was not offered mcp__mytools__echo")
	}
	if !requestHas(srv, 1, "ECHO:hi") {
		t.Errorf("the tool's result did not reach the model: %s", srv.Requests()[1].Body)
	}
	if r := run.byType("result"); len(r) != 1 || r[0]["subtype"] != "success" {
		t.Errorf("results = %v", r)
	}
	if init := run.byType("system"); len(init) == 0 || fmt.Sprint(init[0]["mcp_servers"]) != "[map[name:mytools status:connected]]" {
		t.Errorf("system/init does not list the app's server as connected: %v", init)
	}
}

// resume by session id: a second process continues the first's
// conversation under the same id.
func TestResumeBySessionID(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	srv := fakemodel.Start(t, fakemodel.Say("noted: the word is tangerine"), fakemodel.Say("It was tangerine."), fakemodel.Say("Still tangerine."))
	first := runSDK(t, dir, srv, model, `
for await (const m of query({ prompt: 'remember the word tangerine', options: { pathToClaudeCodeExecutable: exe } })) log(m)`)
	r := first.byType("result")
	if len(r) != 1 {
		t.Fatalf("first results = %v", r)
	}
	id, _ := r[0]["session_id"].(string)
	second := runSDK(t, dir, srv, model, `
for await (const m of query({ prompt: 'what was the word?', options: { pathToClaudeCodeExecutable: exe, resume: `+jsString(id)+` } })) log(m)`)
	r2 := second.byType("result")
	if len(r2) != 1 || r2[0]["session_id"] != id || r2[0]["result"] != "It was tangerine." {
		t.Fatalf("resumed results = %v (first session %s)", r2, id)
	}
	if !requestHas(srv, 1, "remember the word tangerine") {
		t.Errorf("the resumed conversation lost the first prompt: %s", srv.Requests()[1].Body)
	}

	// forkSession: the conversation goes on under a new id; the old one
	// is left as it was.
	before, _ := os.ReadFile(filepath.Join(dir, ".indusvx", "transcripts", id+".jsonl"))
	third := runSDK(t, dir, srv, model, `
for await (const m of query({ prompt: 'and now?', options: { pathToClaudeCodeExecutable: exe, resume: `+jsString(id)+`, forkSession: true } })) log(m)`)
	r3 := third.byType("result")
	if len(r3) != 1 || r3[0]["session_id"] == id || r3[0]["result"] != "Still tangerine." {
		t.Fatalf("forked results = %v (first session %s)", r3, id)
	}
	if !requestHas(srv, 2, "remember the word tangerine") || !requestHas(srv, 2, "what was the word?") {
		t.Errorf("the fork lost the conversation: %s", srv.Requests()[2].Body)
	}
	after, _ := os.ReadFile(filepath.Join(dir, ".indusvx", "transcripts", id+".jsonl"))
	if len(before) == 0 || string(before) != string(after) {
		t.Errorf("the forked-from transcript changed (%d bytes before, %d after)", len(before), len(after))
	}
}

// outputFormat with a JSON schema: the model answers through the
// StructuredOutput tool and the result carries structured_output.
func TestOutputFormatSchema(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	srv := fakemodel.Start(t,
		fakemodel.Call("StructuredOutput", `{"answer":4,"unit":"apples"}`),
		fakemodel.Say("Given."))
	run := runSDK(t, dir, srv, model, `
const schema = { type: 'object', properties: { answer: { type: 'number' }, unit: { type: 'string' } }, required: ['answer', 'unit'] };
for await (const m of query({ prompt: 'two plus two apples?', options: { pathToClaudeCodeExecutable: exe, outputFormat: { type: 'json_schema', schema } } })) log(m)`)
	r := run.byType("result")
	if len(r) != 1 {
		t.Fatalf("results = %v", r)
	}
	so, _ := r[0]["structured_output"].(map[string]any)
	if so["answer"] != 4.0 || so["unit"] != "apples" {
		t.Errorf("structured_output = %v in %v", r[0]["structured_output"], r[0])
	}
}

// The app's agents option becomes subagent profiles: the model's task
// call delegates to the app's agent, whose prompt briefs the child, and
// the child's answer reaches the parent.
func TestAppAgents(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	srv := fakemodel.Start(t)
	srv.Respond(func(n int, r fakemodel.Request) fakemodel.Reply {
		body := string(r.Body)
		switch {
		case strings.Contains(body, "REVIEWER-BRIEF"):
			return fakemodel.Say("REVIEW: all good")
		case strings.Contains(body, "REVIEW: all good"):
			return fakemodel.Say("The reviewer says all good.")
		}
		return fakemodel.Call("task", `{"objective":"Review the tree","agent":"reviewer"}`)
	})
	run := runSDK(t, dir, srv, model, `
const agents = { reviewer: { description: 'Reviews code', prompt: 'You are the reviewer. REVIEWER-BRIEF', tools: ['Read', 'Grep'] } };
for await (const m of query({ prompt: 'get a review', options: { pathToClaudeCodeExecutable: exe, agents, permissionMode: 'bypassPermissions' } })) log(m)`)
	r := run.byType("result")
	if len(r) != 1 || r[0]["result"] != "The reviewer says all good." {
		t.Fatalf("results = %v", r)
	}
	if !strings.Contains(string(srv.Requests()[0].Body), "reviewer") {
		t.Errorf("the task card does not offer the app's agent")
	}
	if init := run.byType("system"); len(init) == 0 || strings.Count(fmt.Sprint(init[0]["agents"]), "reviewer") != 1 {
		t.Errorf("system/init does not list the app's agent: %v", init)
	}
}

// fallbackModel answers when the main model is overloaded.
func TestFallbackModel(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	srv := fakemodel.Start(t)
	srv.Respond(func(n int, r fakemodel.Request) fakemodel.Reply {
		if r.Model() == "claude-main" {
			return fakemodel.Reply{Status: 529, RetryAfter: "0.001"}
		}
		return fakemodel.Say("the spare model answers")
	})
	run := runSDK(t, dir, srv, model, `
for await (const m of query({ prompt: 'hello', options: { pathToClaudeCodeExecutable: exe, model: 'anthropic/claude-main', fallbackModel: 'anthropic/claude-spare' } })) log(m)`)
	r := run.byType("result")
	if len(r) != 1 || r[0]["result"] != "the spare model answers" {
		t.Fatalf("results = %v", r)
	}
	last := srv.Requests()[len(srv.Requests())-1]
	if last.Model() != "claude-spare" {
		t.Errorf("the last call went to %s", last.Model())
	}
}

// The app's other MCP servers (a command) are mounted as indusr mounts
// its own: their tools are grafted as SERVER__TOOL.
func TestAppCommandMCPServer(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "note.txt"), []byte("the note says plum\n"), 0o644)
	srv := fakemodel.Start(t,
		fakemodel.Call("ext__read", `{"path":"note.txt"}`),
		fakemodel.Say("plum"))
	run := runSDK(t, dir, srv, model, `
for await (const m of query({ prompt: 'read the note through ext', options: { pathToClaudeCodeExecutable: exe,
  mcpServers: { ext: { command: exe, args: ['serve', '--no-mcp', '--no-addons', '--tools', 'read'] } } } })) log(m)`)
	if !strings.Contains(string(srv.Requests()[0].Body), `"ext__read"`) {
		t.Fatalf("the model was not offered ext__read: %v", run.lines)
	}
	if !requestHas(srv, 1, "the note says plum") {
		t.Errorf("the server's read did not reach the model: %s", srv.Requests()[1].Body)
	}
}

// rewindFiles puts the files a user message's turn changed back: a dry
// run names them and changes nothing, the rewind restores them.
func TestRewindFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "notes.txt")
	os.WriteFile(path, []byte("before\n"), 0o644)
	srv := fakemodel.Start(t,
		fakemodel.Call("read", `{"path":"notes.txt"}`),
		fakemodel.Call("write", `{"path":"notes.txt","content":"after\n"}`),
		fakemodel.Say("written"))
	run := runSDK(t, dir, srv, model, `
const id = '11111111-2222-4333-8444-555555555555';
let done;
const finished = new Promise((r) => { done = r; });
async function* messages() {
  yield { type: 'user', uuid: id, session_id: '', parent_tool_use_id: null, message: { role: 'user', content: 'rewrite notes.txt' } };
  await finished;
}
const fs = await import('node:fs');
const q = query({ prompt: messages(), options: { pathToClaudeCodeExecutable: exe, permissionMode: 'acceptEdits', enableFileCheckpointing: true } });
for await (const m of q) {
  log(m);
  if (m.type === 'result') {
    log({ dry: await q.rewindFiles(id, { dryRun: true }), text: fs.readFileSync(cwd + '/notes.txt', 'utf8') });
    log({ rewound: await q.rewindFiles(id) });
    done();
  }
}`)
	var dry, rewound map[string]any
	var textAfterDry string
	for _, l := range run.lines {
		if d, ok := l["dry"].(map[string]any); ok {
			dry, textAfterDry = d, l["text"].(string)
		}
		if r, ok := l["rewound"].(map[string]any); ok {
			rewound = r
		}
	}
	if dry["canRewind"] != true || textAfterDry != "after\n" {
		t.Errorf("dry run = %v, the file then %q", dry, textAfterDry)
	}
	if rewound["canRewind"] != true {
		t.Errorf("rewind = %v", rewound)
	}
	if b, _ := os.ReadFile(path); string(b) != "before\n" {
		t.Errorf("notes.txt after the rewind = %q", b)
	}
}
