package gemini

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/indusagi/induscode/provider"
)

// A thought signature that is not base64 (a transcript edited by hand)
// is an error naming the block, not a request with the signature lost.
func TestBrokenSignatureIsAnError(t *testing.T) {
	_, _, err := Params(provider.Request{Model: "m", Messages: []provider.Message{provider.UserText("hi"),
		{Role: provider.Assistant, Blocks: []provider.Block{{Kind: provider.ToolUseBlock, ID: "c1", Name: "read", Input: json.RawMessage(`{}`), Signature: "not base64!"}}}}})
	if err == nil || !strings.Contains(err.Error(), "tool_use block's thought signature is not base64") {
		t.Fatalf("err %v", err)
	}
}

// A tool result names its call's function, and a made-up call id is not
// sent; other providers' thinking and signed thinking stay out.
func TestContentsOfAToolLoop(t *testing.T) {
	contents, _, err := Params(provider.Request{Model: "m", Messages: []provider.Message{provider.UserText("hi"),
		{Role: provider.Assistant, Blocks: []provider.Block{
			{Kind: provider.ThinkingBlock, Text: "Anthropic's", Signature: "EqQB"},
			{Kind: provider.ToolUseBlock, ID: madeUpID + "r-0", Name: "read", Input: json.RawMessage(`{"path":"a"}`)},
			{Kind: provider.ToolUseBlock, ID: "toolu_9", Name: "ls", Input: json.RawMessage(`{}`)}}},
		{Role: provider.User, Blocks: []provider.Block{
			{Kind: provider.ToolResultBlock, ToolUseID: madeUpID + "r-0", Text: "body"},
			{Kind: provider.ToolResultBlock, ToolUseID: "toolu_9", Text: "boom", IsError: true}}}}})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(contents[1:])
	want := `[{"parts":[{"functionCall":{"args":{"path":"a"},"name":"read"}},{"functionCall":{"id":"toolu_9","name":"ls"}}],"role":"model"},` +
		`{"parts":[{"functionResponse":{"name":"read","response":{"output":"body"}}},{"functionResponse":{"id":"toolu_9","name":"ls","response":{"error":"boom"}}}],"role":"user"}]`
	if string(b) != want {
		t.Errorf("contents\n%s\nwant\n%s", b, want)
	}
}

func TestRetryDelay(t *testing.T) {
	d := retryDelay([]map[string]any{{"@type": "type.googleapis.com/google.rpc.QuotaFailure"},
		{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "1.5s"}})
	if d != 1500*time.Millisecond {
		t.Errorf("delay %v", d)
	}
	if d := retryDelay([]map[string]any{{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "soon"}}); d != 0 {
		t.Errorf("a delay that is no duration: %v", d)
	}
}

// Calls that came without an id get one made up, different in every
// answer even when the answer has no response id to build it from.
func TestMadeUpCallIDsDiffer(t *testing.T) {
	ids := map[string]bool{}
	for range 2 {
		var a accumulator
		a.add(&genai.GenerateContentResponse{Candidates: []*genai.Candidate{{FinishReason: genai.FinishReasonStop,
			Content: &genai.Content{Parts: []*genai.Part{{FunctionCall: &genai.FunctionCall{Name: "read"}}, {FunctionCall: &genai.FunctionCall{Name: "ls"}}}}}}}, nil)
		for _, u := range a.response().Message.ToolUses() {
			if !strings.HasPrefix(u.ID, madeUpID) || ids[u.ID] {
				t.Errorf("id %q (seen: %v)", u.ID, ids)
			}
			ids[u.ID] = true
		}
	}
	if len(ids) != 4 {
		t.Errorf("ids %v", ids)
	}
}
