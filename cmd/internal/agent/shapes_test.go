package agent

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/indusagi/induscode/conductor"
	"github.com/indusagi/induscode/conductor/toolrun"
	"github.com/indusagi/induscode/provider"
)

// lines decodes each line of out, and checks that each begins with its
// type, as Claude Code's lines do.
func lines(t *testing.T, out string) []map[string]any {
	t.Helper()
	var ms []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if !strings.HasPrefix(l, `{"type":`) {
			t.Errorf("line does not begin with its type: %s", l)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		ms = append(ms, m)
	}
	return ms
}

func hasKeys(t *testing.T, what string, m map[string]any, keys ...string) {
	t.Helper()
	for _, k := range keys {
		if _, ok := m[k]; !ok {
			t.Errorf("%s lacks %s: %v", what, k, m)
		}
	}
}

var uuidForm = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// A run of read, a refused edit and bash, printed in stream-json: every
// message carries Claude Code's keys (its own uuid, the session, a null
// parent tool call, a timestamp on conversation messages), the assistant
// message names the model that answered and the API's message id, each
// tool result is a user message of its own with the tool's structured
// account, and the result lists the refused edit.
func TestStreamJSONCarriesClaudeCodesKeys(t *testing.T) {
	t.Parallel()
	var out, errs bytes.Buffer
	p := NewPrinter(&out, &errs, "stream-json", true)
	p.Init.APIKeySource = "ANTHROPIC_API_KEY"
	read := provider.Block{Kind: provider.ToolUseBlock, ID: "t1", Name: "read", Input: json.RawMessage(`{"path":"notes.txt"}`)}
	edit := provider.Block{Kind: provider.ToolUseBlock, ID: "t2", Name: "edit", Input: json.RawMessage(`{"path":"notes.txt","old_string":"hello","new_string":"bye"}`)}
	bash := provider.Block{Kind: provider.ToolUseBlock, ID: "t3", Name: "bash", Input: json.RawMessage(`{"command":"echo hi"}`)}
	p.Event(conductor.Started{SessionID: "0190b6d2-7c1e-7000-8000-000000000001", Model: "anthropic/claude-x", Dir: "/w", Tools: []string{"read"}, Mode: conductor.Default,
		Servers: []conductor.ServerState{{Name: "docs", State: "ready"}, {Name: "broken", State: "failed"}},
		Agents:  []string{"general-purpose", "reviewer"}, Addons: []conductor.AddonInfo{{ID: "audit", Path: "/w/.indus/addons/audit"}}})
	p.Event(conductor.AssistantMessage{Message: provider.Message{Role: provider.Assistant, Blocks: []provider.Block{read, edit, bash}},
		Model: "claude-x-20260101", Requested: "anthropic/claude-x", ID: "msg_1", Stop: provider.StopToolUse})
	p.Event(conductor.ToolResults{Message: provider.Message{Role: provider.User, Blocks: []provider.Block{
		{Kind: provider.ToolResultBlock, ToolUseID: "t1", Text: "     1\thello\n     2\tworld"},
		{Kind: provider.ToolResultBlock, ToolUseID: "t2", Text: "permission needed for the call of edit", IsError: true, Failure: toolrun.Refused},
		{Kind: provider.ToolResultBlock, ToolUseID: "t3", Text: "hi\nexit code 0"},
	}}})
	p.Result(&conductor.Result{Subtype: conductor.Success, Text: "done", Turns: 2, Duration: 2 * time.Second, APIDuration: time.Second,
		Stop: provider.StopEndTurn, Models: []conductor.ModelUse{{Model: "claude-x-20260101", Usage: provider.Usage{InputTokens: 5}, ContextWindow: 200000}},
		Denials: []conductor.Denial{{Tool: "edit", ToolUseID: "t2", Input: edit.Input}}})
	ms := lines(t, out.String())
	var kinds []string
	for _, m := range ms {
		k := m["type"].(string)
		if st, ok := m["subtype"]; ok && k == "system" {
			k += "/" + st.(string)
		}
		kinds = append(kinds, k)
		if id, _ := m["uuid"].(string); !uuidForm.MatchString(id) {
			t.Errorf("%s: uuid %q", k, m["uuid"])
		}
		if m["session_id"] != "0190b6d2-7c1e-7000-8000-000000000001" {
			t.Errorf("%s: session_id %v", k, m["session_id"])
		}
	}
	want := "system/init assistant user system/permission_denied user user result"
	if strings.Join(kinds, " ") != want {
		t.Fatalf("messages %v, want %s", kinds, want)
	}
	hasKeys(t, "system/init", ms[0], "cwd", "tools", "mcp_servers", "model", "permissionMode", "slash_commands", "apiKeySource",
		"output_style", "agents", "skills", "plugins", "capabilities")
	if ms[0]["apiKeySource"] != "ANTHROPIC_API_KEY" {
		t.Errorf("apiKeySource %v", ms[0]["apiKeySource"])
	}
	// The session's MCP servers with their status in Claude Code's words,
	// the subagents it can run, its addons as plugins.
	b, _ := json.Marshal([]any{ms[0]["mcp_servers"], ms[0]["agents"], ms[0]["plugins"]})
	if want := `[[{"name":"docs","status":"connected"},{"name":"broken","status":"failed"}],["general-purpose","reviewer"],[{"name":"audit","path":"/w/.indus/addons/audit"}]]`; string(b) != want {
		t.Errorf("system/init servers, agents, plugins\n got %s\nwant %s", b, want)
	}
	for _, i := range []int{1, 2, 4, 5} {
		hasKeys(t, kinds[i], ms[i], "parent_tool_use_id", "timestamp")
		if ms[i]["parent_tool_use_id"] != nil {
			t.Errorf("%s: parent_tool_use_id %v, want null", kinds[i], ms[i]["parent_tool_use_id"])
		}
	}
	msg := ms[1]["message"].(map[string]any)
	hasKeys(t, "assistant message", msg, "stop_sequence", "usage")
	if msg["model"] != "claude-x-20260101" || msg["id"] != "msg_1" || msg["stop_reason"] != "tool_use" {
		t.Errorf("assistant message %v", msg)
	}
	file, _ := ms[2]["tool_use_result"].(map[string]any)["file"].(map[string]any)
	if file["filePath"] != "/w/notes.txt" || file["content"] != "hello\nworld" || file["numLines"] != float64(2) || file["startLine"] != float64(1) {
		t.Errorf("read's tool_use_result %v", ms[2]["tool_use_result"])
	}
	if ms[3]["tool_name"] != "edit" || ms[3]["tool_use_id"] != "t2" {
		t.Errorf("permission_denied %v", ms[3])
	}
	if ms[4]["tool_use_result"] != "Error: permission needed for the call of edit" {
		t.Errorf("refused edit's tool_use_result %v", ms[4]["tool_use_result"])
	}
	if meta := ms[4]["tool_result_meta"].([]any)[0].(map[string]any); meta["id"] != "t2" || meta["permission_decision"].(map[string]any)["decision"] != "reject" {
		t.Errorf("refused edit's tool_result_meta %v", meta)
	}
	if r := ms[5]["tool_use_result"].(map[string]any); r["stdout"] != "hi" || r["stderr"] != "" || r["interrupted"] != false {
		t.Errorf("bash's tool_use_result %v", r)
	}
	res := ms[6]
	hasKeys(t, "result", res, "duration_api_ms", "stop_reason", "modelUsage", "permission_denials", "terminal_reason", "result_index")
	if res["duration_api_ms"] != float64(1000) || res["stop_reason"] != "end_turn" || res["terminal_reason"] != "completed" || res["result"] != "done" {
		t.Errorf("result %v", res)
	}
	if _, ok := res["errors"]; ok {
		t.Errorf("a success has errors: %v", res)
	}
	mu := res["modelUsage"].(map[string]any)["claude-x-20260101"].(map[string]any)
	if mu["inputTokens"] != float64(5) || mu["contextWindow"] != float64(200000) {
		t.Errorf("modelUsage %v", res["modelUsage"])
	}
	d := res["permission_denials"].([]any)
	if len(d) != 1 || d[0].(map[string]any)["tool_name"] != "edit" || d[0].(map[string]any)["tool_input"].(map[string]any)["new_string"] != "bye" {
		t.Errorf("permission_denials %v", d)
	}
}

// --max-turns reached: text mode says so on standard output in Claude
// Code's words; json has error_max_turns with errors and no result.
func TestMaxTurnsIsReportedAsClaudeCodeDoes(t *testing.T) {
	t.Parallel()
	r := &conductor.Result{Subtype: conductor.ErrorMaxTurns, IsError: true, Turns: 2, Text: "Reached maximum number of turns (1)", Stop: provider.StopToolUse}
	var out, errs bytes.Buffer
	p := NewPrinter(&out, &errs, "text", false)
	p.Result(r)
	p.Flush()
	if out.String() != "Error: Reached max turns (1)\n" || errs.Len() != 0 {
		t.Errorf("text: stdout %q, stderr %q", out.String(), errs.String())
	}
	out.Reset()
	p = NewPrinter(&out, &errs, "json", false)
	p.Result(r)
	m := lines(t, out.String())[0]
	errors, _ := m["errors"].([]any)
	if _, has := m["result"]; has || len(errors) != 1 || errors[0] != "Reached maximum number of turns (1)" ||
		m["subtype"] != "error_max_turns" || m["num_turns"] != float64(2) || m["terminal_reason"] != "max_turns" || m["stop_reason"] != "tool_use" {
		t.Errorf("json: %v", m)
	}
}

// A cancelled run and a refused prompt are errors during execution in
// Claude Code's words, told apart by the terminal reason.
func TestOutcomesUseClaudeCodesSubtypes(t *testing.T) {
	t.Parallel()
	for s, want := range map[conductor.Subtype][2]string{
		conductor.Success:        {"success", "completed"},
		conductor.ErrorMaxTurns:  {"error_max_turns", "max_turns"},
		conductor.ErrorExecution: {"error_during_execution", "api_error"},
		conductor.Cancelled:      {"error_during_execution", "aborted_streaming"},
		conductor.Refused:        {"error_during_execution", "hook_stopped"},
	} {
		if sub, term := outcome(s); sub != want[0] || term != want[1] {
			t.Errorf("%s: %s, %s; want %v", s, sub, term, want)
		}
	}
}

// An edit's result is the change as Claude Code's structuredPatch hunks.
func TestEditResultIsItsHunks(t *testing.T) {
	t.Parallel()
	use := provider.Block{Kind: provider.ToolUseBlock, Name: "edit", Input: json.RawMessage(`{"path":"a.txt","old_string":"b","new_string":"B"}`)}
	res := provider.Block{Kind: provider.ToolResultBlock, Text: "Edited a.txt",
		Structured: json.RawMessage(`{"path":"a.txt","diff":"--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n","replacements":1}`)}
	b, _ := json.Marshal(toolUseResult(use, res, "/w"))
	want := `{"filePath":"/w/a.txt","newString":"B","oldString":"b","replaceAll":false,"structuredPatch":[{"oldStart":1,"oldLines":3,"newStart":1,"newLines":3,"lines":[" a","-b","+B"," c"]}]}`
	if string(b) != want {
		t.Errorf("edit's tool_use_result\n got %s\nwant %s", b, want)
	}
}

// --include-partial-messages: the answer streams as the Messages API's
// events, whatever the provider, before the whole message; a tool call's
// input comes whole before its block ends.
func TestPartialMessagesStreamTheAnswer(t *testing.T) {
	t.Parallel()
	var out, errs bytes.Buffer
	p := NewPrinter(&out, &errs, "stream-json", true)
	p.Partial = true
	p.SetSession("s")
	p.Event(conductor.TurnStarted{N: 1})
	p.Event(conductor.Delta{Delta: provider.Delta{Kind: provider.TextDelta, Text: "Let me "}})
	p.Event(conductor.Delta{Delta: provider.Delta{Kind: provider.TextDelta, Text: "look."}})
	p.Event(conductor.Delta{Delta: provider.Delta{Kind: provider.ToolUseStart, Index: 1, Name: "read"}})
	use := provider.Block{Kind: provider.ToolUseBlock, ID: "t1", Name: "read", Input: json.RawMessage(`{"path":"a"}`)}
	p.Event(conductor.AssistantMessage{Message: provider.Message{Role: provider.Assistant, Blocks: []provider.Block{
		{Kind: provider.TextBlock, Text: "Let me look."}, use}}, Model: "m", Stop: provider.StopToolUse})
	var got []string
	for _, m := range lines(t, out.String()) {
		if m["type"] != "stream_event" {
			got = append(got, m["type"].(string))
			continue
		}
		hasKeys(t, "stream_event", m, "uuid", "session_id", "parent_tool_use_id")
		e := m["event"].(map[string]any)
		k := e["type"].(string)
		if d, ok := e["delta"].(map[string]any); ok && k == "content_block_delta" {
			k += ":" + d["type"].(string)
			if d["type"] == "input_json_delta" && d["partial_json"] != `{"path":"a"}` {
				t.Errorf("tool input %v", d)
			}
		}
		got = append(got, k)
	}
	want := "message_start content_block_start content_block_delta:text_delta content_block_delta:text_delta content_block_stop " +
		"content_block_start content_block_delta:input_json_delta content_block_stop message_delta message_stop assistant"
	if strings.Join(got, " ") != want {
		t.Errorf("lines\n got %s\nwant %s", strings.Join(got, " "), want)
	}
}
