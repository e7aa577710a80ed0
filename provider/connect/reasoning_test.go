package connect_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/indusagi/induscode/internal/fakemodel"
	"github.com/indusagi/induscode/provider"
	"github.com/indusagi/induscode/provider/connect"
)

// A tool loop with thinking on carries each API's reasoning state to the
// next turn unchanged: Anthropic's signed thinking, OpenAI's reasoning
// item with its encrypted content (the request asks for it and stores
// nothing), Gemini's thought signature on its function call. The fake
// refuses a second request that lost or changed it, as the services do.
func TestReasoningCarriedAcrossTurns(t *testing.T) {
	for _, api := range []string{"anthropic", "openai", "gemini", "bedrock", "vertex"} {
		t.Run(api, func(t *testing.T) {
			srv := fakemodel.Start(t,
				fakemodel.Reply{Blocks: []fakemodel.Block{fakemodel.Thinking("The file is short; read it whole."), fakemodel.ToolUse("read", `{"path":"a.go"}`)}},
				fakemodel.Reply{Blocks: []fakemodel.Block{fakemodel.Thinking("It defines main."), fakemodel.ToolUse("read", `{"path":"b.go"}`)}},
				fakemodel.Say("a.go defines main; b.go is empty."))
			c := open(t, api, srv, -1)
			thinking, err := provider.ThinkingLevel("medium")
			if err != nil {
				t.Fatal(err)
			}
			req := provider.Request{Model: "m", Thinking: thinking, Messages: []provider.Message{provider.UserText("what is in a.go and b.go?")},
				Tools: []provider.ToolDef{{Name: "read", InputSchema: json.RawMessage(`{"type":"object"}`)}}}
			var thoughts strings.Builder
			for turn := 0; turn < 3; turn++ {
				resp, err := c.Stream(context.Background(), req, func(d provider.Delta) {
					if d.Kind == provider.ThinkingDelta {
						thoughts.WriteString(d.Text)
					}
				})
				if err != nil {
					t.Fatalf("turn %d: %v (refusals %q)", turn+1, err, srv.Refusals())
				}
				if turn == 2 {
					if resp.Message.Text() != "a.go defines main; b.go is empty." {
						t.Errorf("answer %+v", resp.Message)
					}
					break
				}
				if th := resp.Message.Blocks[0]; th.Kind != provider.ThinkingBlock || th.Text == "" {
					t.Fatalf("turn %d: first block %+v", turn+1, th)
				}
				use := resp.Message.ToolUses()[0]
				req.Messages = append(req.Messages, resp.Message, provider.Message{Role: provider.User,
					Blocks: []provider.Block{{Kind: provider.ToolResultBlock, ToolUseID: use.ID, Text: "package x"}}})
			}
			if got := thoughts.String(); got != "The file is short; read it whole.It defines main." {
				t.Errorf("thinking streamed %q", got)
			}
			if r := srv.Refusals(); len(r) != 0 {
				t.Errorf("refused: %q", r)
			}
			last := string(srv.Requests()[2].Body)
			want := map[string][]string{
				"anthropic": {`"thinking":{"budget_tokens":4096,"type":"enabled"}`, `"signature":"EqQB`},
				"openai":    {`"reasoning":{"effort":"medium"`, `"include":["reasoning.encrypted_content"]`, `"store":false`, `"type":"reasoning"`, `"encrypted_content":"gAAAA`},
				"gemini":    {`"thinkingConfig":{"includeThoughts":true,"thinkingBudget":4096}`, `"thoughtSignature":"CiQB`},
				"bedrock":   {`"thinking":{"budget_tokens":4096,"type":"enabled"}`, `"signature":"EqQB`},
				"vertex":    {`"thinking":{"budget_tokens":4096,"type":"enabled"}`, `"signature":"EqQB`},
			}[api]
			for _, w := range want {
				if !strings.Contains(last, w) {
					t.Errorf("the third request lacks %s:\n%s", w, last)
				}
			}
			if api == "openai" && strings.Contains(last, "previous_response_id") {
				t.Errorf("the request leans on stored state: %s", last)
			}
		})
	}
}

// Without the encrypted content, the Responses fake refuses the reasoning
// item as the service does when nothing is stored: the check above is
// not one that passes whatever is sent.
func TestResponsesRefusesReasoningWithoutItsContent(t *testing.T) {
	srv := fakemodel.Start(t, fakemodel.Say("never"))
	c := open(t, "openai", srv, -1)
	msgs := []provider.Message{provider.UserText("hi"),
		{Role: provider.Assistant, Blocks: []provider.Block{{Kind: provider.ThinkingBlock, ID: "rs_1", Data: "gAAAAforged", Text: "plan"}, {Kind: provider.TextBlock, Text: "hello"}}},
		provider.UserText("again")}
	_, err := c.Stream(context.Background(), provider.Request{Model: "m", Messages: msgs}, nil)
	if err == nil || !strings.Contains(err.Error(), "could not be verified") {
		t.Fatalf("err %v", err)
	}
}

// One --thinking level reaches each API in its own words: Anthropic's and
// Gemini's token budgets, OpenAI's reasoning effort; off asks for none.
func TestThinkingLevelReachesEveryAPI(t *testing.T) {
	want := map[string]map[string]string{
		"anthropic":   {"low": `"thinking":{"budget_tokens":1024,"type":"enabled"}`, "high": `"thinking":{"budget_tokens":16384,"type":"enabled"}`},
		"openai":      {"low": `"reasoning":{"effort":"low","summary":"auto"}`, "high": `"reasoning":{"effort":"high","summary":"auto"}`},
		"openai-chat": {"low": `"reasoning_effort":"low"`, "high": `"reasoning_effort":"high"`},
		"gemini":      {"low": `"thinkingConfig":{"includeThoughts":true,"thinkingBudget":1024}`, "high": `"thinkingConfig":{"includeThoughts":true,"thinkingBudget":16384}`},
	}
	off := map[string]string{"anthropic": `"thinking"`, "openai": `"reasoning"`, "openai-chat": `"reasoning_effort"`, "gemini": `"thinkingConfig"`}
	want["bedrock"], want["vertex"] = want["anthropic"], want["anthropic"] // the same Messages API
	off["bedrock"], off["vertex"] = off["anthropic"], off["anthropic"]
	for _, api := range apis {
		for _, level := range []string{"off", "low", "high"} {
			t.Run(api+"/"+level, func(t *testing.T) {
				srv := fakemodel.Start(t, fakemodel.Say("ok"))
				th, err := provider.ThinkingLevel(level)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := open(t, api, srv, -1).Stream(context.Background(), provider.Request{Model: "m", Thinking: th,
					Messages: []provider.Message{provider.UserText("hi")}}, nil); err != nil {
					t.Fatal(err)
				}
				body := string(srv.Requests()[0].Body)
				if level == "off" {
					if strings.Contains(body, off[api]) {
						t.Errorf("thinking off still asks for it: %s", body)
					}
					return
				}
				if !strings.Contains(body, want[api][level]) {
					t.Errorf("request lacks %s: %s", want[api][level], body)
				}
			})
		}
	}
}

// A model that does not reason refuses the include of encrypted
// reasoning; the call is made again without it, and later calls of that
// model leave it out from the start.
func TestResponsesModelWithoutReasoning(t *testing.T) {
	srv := fakemodel.Start(t, fakemodel.Say("first"), fakemodel.Say("second"))
	env := fakeEnv(srv)
	c, _, err := connect.Open("openai/gpt-4.1", connect.Config{Getenv: func(k string) string { return env[k] }, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"first", "second"} {
		resp, err := c.Stream(context.Background(), provider.Request{Model: "gpt-4.1", Messages: []provider.Message{provider.UserText("hi")}}, nil)
		if err != nil || resp.Message.Text() != want {
			t.Fatalf("%+v %v", resp, err)
		}
	}
	reqs := srv.Requests()
	if len(reqs) != 3 || reqs[0].Refused == "" || strings.Contains(string(reqs[2].Body), "include") {
		t.Errorf("%d requests, first refused %q, third %s", len(reqs), reqs[0].Refused, reqs[2].Body)
	}
}

// A refusal of the Responses API (a message whose content is a refusal)
// is the answer's text, with the refusal stop reason.
func TestResponsesRefusal(t *testing.T) {
	srv := fakemodel.Start(t, fakemodel.Reply{Blocks: []fakemodel.Block{fakemodel.Text("I can't help with that.")}, Stop: "refusal"})
	var shown strings.Builder
	resp, err := open(t, "openai", srv, -1).Stream(context.Background(), provider.Request{Model: "m", Messages: []provider.Message{provider.UserText("hi")}},
		func(d provider.Delta) { shown.WriteString(d.Text) })
	if err != nil || resp.Message.Text() != "I can't help with that." || resp.Stop != provider.StopRefusal || shown.String() != "I can't help with that." {
		t.Fatalf("%+v %v, shown %q", resp, err, shown.String())
	}
}
