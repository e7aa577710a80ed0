package fakemodel

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

func post(t *testing.T, s *Server, api, body string) (int, string) {
	t.Helper()
	path := map[string]string{"anthropic": "/v1/messages", "openai": "/v1/chat/completions", "responses": "/v1/responses",
		"gemini": "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"}[api]
	resp, err := http.Post(s.URL+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

const tools = `"tools":[{"name":"read","input_schema":{"type":"object"}}]`

// The requests the real services refuse are refused here with their
// status and message, and take no reply from the script.
func TestRefusesWhatTheAPIsRefuse(t *testing.T) {
	use := `{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"read","input":{}}]}`
	result := `{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"x"}]}`
	hi := `{"role":"user","content":"hi"}`
	sig := signature("plan")
	for _, tt := range []struct {
		name, api, body, want string
	}{
		{"tool blocks without tools", "anthropic", `{"messages":[` + hi + `,` + use + `,` + result + `]}`, "must define tools"},
		{"tool_use without its result", "anthropic", `{` + tools + `,"messages":[` + hi + `,` + use + `,` + hi + `]}`, "`tool_use` ids were found without `tool_result` blocks immediately after: toolu_1"},
		{"tool_use at the end", "anthropic", `{` + tools + `,"messages":[` + hi + `,` + use + `]}`, "without `tool_result`"},
		{"result without its use", "anthropic", `{` + tools + `,"messages":[` + hi + `,{"role":"assistant","content":"ok"},` + result + `]}`, "unexpected `tool_use_id`"},
		{"assistant first", "anthropic", `{"messages":[{"role":"assistant","content":"x"},` + hi + `]}`, "first message must use the"},
		{"two user messages", "anthropic", `{"messages":[` + hi + `,` + hi + `]}`, "roles must alternate"},
		{"empty text", "anthropic", `{"messages":[{"role":"user","content":[{"type":"text","text":""}]}]}`, "non-empty"},
		{"object input", "anthropic", `{` + tools + `,"messages":[` + hi + `,{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"read","input":"{\"pa"}]},` + result + `]}`, "valid dictionary"},
		{"thinking dropped in a tool loop", "anthropic", `{` + tools + `,"thinking":{"type":"enabled","budget_tokens":1024},"messages":[` + hi + `,` + use + `,` + result + `]}`, "Expected `thinking` or `redacted_thinking`, but found `tool_use`"},
		{"thinking changed", "anthropic", `{` + tools + `,"thinking":{"type":"enabled","budget_tokens":1024},"messages":[` + hi + `,{"role":"assistant","content":[{"type":"thinking","thinking":"plan B","signature":"` + sig + `"},{"type":"tool_use","id":"toolu_1","name":"read","input":{}}]},` + result + `]}`, "Invalid `signature`"},
		{"tool call without its answer", "openai", `{"messages":[{"role":"user","content":"hi"},{"role":"assistant","tool_calls":[{"id":"call_1","type":"function","function":{"name":"read","arguments":"{}"}}]},{"role":"user","content":"go on"}]}`, "did not have response messages: call_1"},
		{"tool answer without its call", "openai", `{"messages":[{"role":"user","content":"hi"},{"role":"tool","tool_call_id":"call_9","content":"x"}]}`, "must be a response to a preceeding message with 'tool_calls'"},
		{"function call without its output", "responses", `{"input":[{"role":"user","content":"hi"},{"type":"function_call","call_id":"call_1","name":"read","arguments":"{}"},{"role":"user","content":"go on"}]}`, "No tool output found for function call call_1."},
		{"output without its call", "responses", `{"input":[{"role":"user","content":"hi"},{"type":"function_call_output","call_id":"call_9","output":"x"}]}`, "No tool call found for function call output with call_id call_9."},
		{"reasoning without its content", "responses", `{"store":false,"input":[{"role":"user","content":"hi"},{"type":"reasoning","id":"rs_1","summary":[]},{"role":"assistant","content":"ok"}]}`, "Items are not persisted when `store` is set to false"},
		{"reasoning content forged", "responses", `{"input":[{"role":"user","content":"hi"},{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"gAAAAforged"},{"role":"assistant","content":"ok"}]}`, "could not be verified"},
		{"reasoning last", "responses", `{"input":[{"role":"user","content":"hi"},{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"` + encrypted("rs_1") + `"}]}`, "without its required following item"},
		{"function call unsigned", "gemini", `{"contents":[{"role":"user","parts":[{"text":"hi"}]},{"role":"model","parts":[{"functionCall":{"name":"read","args":{}}}]},{"role":"user","parts":[{"functionResponse":{"name":"read","response":{"output":"x"}}}]}]}`, "Function call is missing a thought_signature"},
		{"function responses short", "gemini", `{"contents":[{"role":"user","parts":[{"text":"hi"}]},{"role":"model","parts":[{"functionCall":{"name":"read","args":{}},"thoughtSignature":"` + thoughtSignature("read") + `"},{"functionCall":{"name":"ls","args":{}}}]},{"role":"user","parts":[{"functionResponse":{"name":"read","response":{"output":"x"}}}]}]}`, "number of function response parts is equal to the number of function call parts"},
		{"function call after the model", "gemini", `{"contents":[{"role":"user","parts":[{"text":"hi"}]},{"role":"model","parts":[{"text":"ok"}]},{"role":"model","parts":[{"functionCall":{"name":"read","args":{}}}]}]}`, "function call turn comes immediately after a user turn"},
		{"unknown role", "gemini", `{"contents":[{"role":"assistant","parts":[{"text":"hi"}]}]}`, "Please use a valid role: user, model."},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := Start(t, Say("never"))
			code, body := post(t, s, tt.api, tt.body)
			want := 400
			if strings.Contains(tt.want, "not persisted") {
				want = 404 // the service did not find the item
			}
			if code != want || !strings.Contains(body, tt.want) {
				t.Fatalf("status %d, body %s; want %d with %q", code, body, want, tt.want)
			}
			if r := s.Refusals(); len(r) != 1 || !strings.Contains(r[0], tt.want) {
				t.Errorf("refusals %q", r)
			}
			if s.next != 0 {
				t.Error("a refused request took a reply from the script")
			}
		})
	}
}

// What the rules allow goes through: a tool loop with its thinking sent
// back as it came, in both APIs.
func TestAcceptsAWellFormedToolLoop(t *testing.T) {
	s := Start(t, Say("ok"), Say("ok"))
	sig := signature("plan")
	if code, body := post(t, s, "anthropic", `{`+tools+`,"thinking":{"type":"enabled","budget_tokens":1024},"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"thinking","thinking":"plan","signature":"`+sig+`"},{"type":"tool_use","id":"toolu_1","name":"read","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"x"},{"type":"text","text":"and more"}]}]}`); code != 200 {
		t.Fatalf("anthropic: %d %s", code, body)
	}
	if code, body := post(t, s, "openai", `{"messages":[{"role":"system","content":"s"},{"role":"user","content":"hi"},{"role":"assistant","tool_calls":[{"id":"a"},{"id":"b"}]},{"role":"tool","tool_call_id":"b","content":"x"},{"role":"tool","tool_call_id":"a","content":"y"},{"role":"user","content":"go"}]}`); code != 200 {
		t.Fatalf("openai: %d %s", code, body)
	}
}

// Over the window, each API answers with its own overflow error; under
// it, the reply reports the estimate as its input tokens.
func TestContextWindow(t *testing.T) {
	s := Start(t, Say("short"))
	s.SetWindow(100)
	long := `{"messages":[{"role":"user","content":"` + strings.Repeat("word ", 200) + `"}]}`
	if code, body := post(t, s, "anthropic", long); code != 400 || !strings.Contains(body, "prompt is too long: ") || !strings.Contains(body, "> 100 maximum") {
		t.Errorf("anthropic: %d %s", code, body)
	}
	if code, body := post(t, s, "openai", long); code != 400 || !strings.Contains(body, `"code":"context_length_exceeded"`) || !strings.Contains(body, "maximum context length is 100 tokens") {
		t.Errorf("openai: %d %s", code, body)
	}
	short := `{"messages":[{"role":"user","content":"hi"}]}`
	code, body := post(t, s, "anthropic", short)
	if code != 200 || !strings.Contains(body, `"input_tokens":`+itoa(estimate([]byte(short)))) {
		t.Errorf("short prompt: %d %s", code, body)
	}
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }

// Tool input is streamed as written, so a test can send a call cut off at
// the output limit; redacted thinking goes out as its own block.
func TestStreamsCutOffInputAndRedactedThinking(t *testing.T) {
	s := Start(t, Reply{Blocks: []Block{RedactedThinking("EmwKAhgBEgy3va"), ToolUse("write", `{"path":"a.txt","content":"hal`)}, Stop: "max_tokens"},
		Reply{Blocks: []Block{ToolUse("write", `{"path": oops}`)}})
	_, body := post(t, s, "anthropic", `{"messages":[{"role":"user","content":"hi"}]}`)
	for _, want := range []string{`"content_block":{"type":"redacted_thinking","data":"EmwKAhgBEgy3va"}`, `"partial_json":"al"}`, `"stop_reason":"max_tokens"`} {
		if !strings.Contains(body, want) {
			t.Errorf("stream lacks %s:\n%s", want, body)
		}
	}
	_, body = post(t, s, "openai", `{"messages":[{"role":"user","content":"hi"}]}`)
	if !strings.Contains(body, `"arguments":": oops}"`) {
		t.Errorf("stream lacks the broken arguments:\n%s", body)
	}
}

// A stalled stream sends its first block, then nothing, until the client
// gives up.
func TestStallHoldsUntilTheClientLeaves(t *testing.T) {
	s := Start(t, Reply{Blocks: []Block{Text("first"), Text("never")}, Stall: true})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", s.URL+"/v1/messages", strings.NewReader(`{"messages":[{"role":"user","content":"hi"}]}`))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	r := bufio.NewReader(resp.Body)
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("stream ended before its first block stopped: %v", err)
		}
		if strings.Contains(line, `"content_block_stop"`) {
			break
		}
	}
	got := make(chan string, 1)
	go func() { rest, _ := io.ReadAll(r); got <- string(rest) }()
	select {
	case rest := <-got:
		t.Fatalf("the stream went on: %q", rest)
	case <-time.After(100 * time.Millisecond):
	}
	cancel()
	if rest := <-got; strings.Contains(rest, "never") {
		t.Errorf("the stalled stream sent the second block: %q", rest)
	}
}
