package fakemodel

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

// sseEvents splits an SSE body into its events' names and data.
func sseEvents(t *testing.T, body, sep string) (names []string, data []map[string]any) {
	t.Helper()
	for _, ev := range strings.Split(strings.TrimSuffix(body, sep+sep), sep+sep) {
		var name string
		for _, line := range strings.Split(ev, sep) {
			switch {
			case strings.HasPrefix(line, "event: "):
				name = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				var m map[string]any
				if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &m); err != nil {
					t.Fatalf("event %q: data is not JSON: %v", ev, err)
				}
				names, data = append(names, name), append(data, m)
			}
		}
	}
	return names, data
}

// The Responses stream names each event twice (SSE name and type), counts
// them from 0, announces every item before its deltas, closes it with its
// whole content, and ends with response.completed carrying the output and
// usage; the encrypted reasoning comes only when include asks for it.
func TestResponsesStream(t *testing.T) {
	s := Start(t, Reply{Blocks: []Block{Thinking("Read the file first, then answer."), Text("Reading."), ToolUse("read", `{"path":"a.go"}`)}, InputTokens: 100, CacheRead: 50, OutputTokens: 20},
		Reply{Blocks: []Block{Thinking("plan")}})
	_, body := post(t, s, "responses", `{"model":"gpt-5","store":false,"include":["reasoning.encrypted_content"],"input":"hi"}`)
	names, data := sseEvents(t, body, "\n")
	for i, m := range data {
		if m["type"] != names[i] || m["sequence_number"] != float64(i) {
			t.Fatalf("event %d: name %q, data %v", i, names[i], m)
		}
	}
	want := "response.created response.in_progress " +
		"response.output_item.added response.reasoning_summary_part.added response.reasoning_summary_text.delta response.reasoning_summary_text.delta response.reasoning_summary_text.done response.reasoning_summary_part.done response.output_item.done " +
		"response.output_item.added response.content_part.added response.output_text.delta response.output_text.done response.content_part.done response.output_item.done " +
		"response.output_item.added response.function_call_arguments.delta response.function_call_arguments.delta response.function_call_arguments.delta response.function_call_arguments.done response.output_item.done " +
		"response.completed"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("events\n%s\nwant\n%s", got, want)
	}
	done := data[len(data)-1]["response"].(map[string]any)
	usage := done["usage"].(map[string]any)
	if done["status"] != "completed" || usage["input_tokens"] != float64(150) || usage["output_tokens"] != float64(20) ||
		usage["input_tokens_details"].(map[string]any)["cached_tokens"] != float64(50) || len(done["output"].([]any)) != 3 {
		t.Errorf("response.completed %v", done)
	}
	reasoning := data[8]["item"].(map[string]any)
	if id := reasoning["id"].(string); reasoning["encrypted_content"] != encrypted(id) {
		t.Errorf("reasoning item %v", reasoning)
	}
	_, body = post(t, s, "responses", `{"model":"gpt-5","input":"hi"}`)
	if !strings.Contains(body, `"encrypted_content":null`) {
		t.Errorf("encrypted content sent unasked:\n%s", body)
	}
}

// Gemini's stream is whole responses in CRLF-separated events: thought
// parts, text in pieces, function calls whole with the first signed, and
// the finish reason with the whole usage in the last.
func TestGeminiStream(t *testing.T) {
	s := Start(t, Reply{Blocks: []Block{Thinking("Look at both."), Text("Reading both files now."), ToolUse("read", `{"path":"a.go"}`), ToolUse("read", `{"path":"b.go"}`)}, InputTokens: 100, CacheRead: 40, OutputTokens: 9},
		Reply{Blocks: []Block{Text("hi")}, Stop: "max_tokens"})
	_, body := post(t, s, "gemini", `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`)
	if strings.Contains(strings.ReplaceAll(body, "\r\n", ""), "\n") {
		t.Errorf("a line ends without CR:\n%q", body)
	}
	_, data := sseEvents(t, body, "\r\n")
	var parts []string
	for _, m := range data {
		c := m["candidates"].([]any)[0].(map[string]any)
		for _, p := range c["content"].(map[string]any)["parts"].([]any) {
			b, _ := json.Marshal(p)
			parts = append(parts, string(b))
		}
	}
	want := []string{`{"text":"Look at both.","thought":true}`, `{"text":"Reading both fil"}`, `{"text":"es now."}`,
		fmt.Sprintf(`{"functionCall":{"args":{"path":"a.go"},"name":"read"},"thoughtSignature":%q}`, thoughtSignature("read")),
		`{"functionCall":{"args":{"path":"b.go"},"name":"read"}}`}
	if strings.Join(parts, "\n") != strings.Join(want, "\n") {
		t.Errorf("parts\n%s\nwant\n%s", strings.Join(parts, "\n"), strings.Join(want, "\n"))
	}
	last := data[len(data)-1]
	usage := last["usageMetadata"].(map[string]any)
	if last["candidates"].([]any)[0].(map[string]any)["finishReason"] != "STOP" || usage["promptTokenCount"] != float64(140) ||
		usage["cachedContentTokenCount"] != float64(40) || usage["candidatesTokenCount"] != float64(9) {
		t.Errorf("last event %v", last)
	}
	for _, m := range data[:len(data)-1] {
		if _, ok := m["candidates"].([]any)[0].(map[string]any)["finishReason"]; ok {
			t.Errorf("a finish reason before the last event: %v", m)
		}
	}
	if _, body = post(t, s, "gemini", `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`); !strings.Contains(body, `"finishReason":"MAX_TOKENS"`) {
		t.Errorf("max tokens: %s", body)
	}
}

// Gemini's errors carry a status name, and a 429's wait is a RetryInfo
// detail, not a header; a 529 is Gemini's 503.
func TestGeminiErrors(t *testing.T) {
	s := Start(t, Reply{Status: 429, RetryAfter: "2"}, Reply{Status: 529})
	code, body := post(t, s, "gemini", `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`)
	if code != 429 || !strings.Contains(body, `"status":"RESOURCE_EXHAUSTED"`) || !strings.Contains(body, `"retryDelay":"2s"`) {
		t.Errorf("429: %d %s", code, body)
	}
	if code, body = post(t, s, "gemini", `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`); code != 503 || !strings.Contains(body, `"status":"UNAVAILABLE"`) {
		t.Errorf("529: %d %s", code, body)
	}
	resp, err := http.Post(s.URL+"/v1beta/models/gemini-2.5-flash:generateContent", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Errorf("an unstreamed call got %d", resp.StatusCode)
	}
}

// A cut reply drops the connection after its first block: the client
// reads the first block, then an unexpected end, in every wire.
func TestCutDropsTheConnection(t *testing.T) {
	for _, api := range []string{"anthropic", "openai", "responses", "gemini"} {
		t.Run(api, func(t *testing.T) {
			s := Start(t, Reply{Blocks: []Block{Text("first"), Text("never")}, Cut: true})
			path := map[string]string{"anthropic": "/v1/messages", "openai": "/v1/chat/completions", "responses": "/v1/responses",
				"gemini": "/v1beta/models/g:streamGenerateContent?alt=sse"}[api]
			resp, err := http.Post(s.URL+path, "application/json", strings.NewReader(`{"messages":[{"role":"user","content":"hi"}],"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, err := io.ReadAll(resp.Body)
			if err != io.ErrUnexpectedEOF || !strings.Contains(string(b), "first") || strings.Contains(string(b), "never") {
				t.Errorf("read %q, %v; want the first block, then io.ErrUnexpectedEOF", b, err)
			}
		})
	}
}

// A reply that ends early closes its body cleanly after the first block,
// without any of the wire's closing events.
func TestEndEarlyOmitsTheClosingEvents(t *testing.T) {
	closing := map[string]string{"anthropic": "message_stop", "openai": "[DONE]", "responses": "response.completed", "gemini": "finishReason"}
	for api, end := range closing {
		t.Run(api, func(t *testing.T) {
			s := Start(t, Reply{Blocks: []Block{Text("first"), Text("never")}, EndEarly: true})
			code, body := post(t, s, api, `{"messages":[{"role":"user","content":"hi"}],"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`)
			if code != 200 || !strings.Contains(body, "first") || strings.Contains(body, "never") || strings.Contains(body, end) {
				t.Errorf("%d %q", code, body)
			}
		})
	}
}
