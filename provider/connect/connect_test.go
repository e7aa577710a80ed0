package connect_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/indusagi/induscode/internal/fakemodel"
	"github.com/indusagi/induscode/provider"
	"github.com/indusagi/induscode/provider/connect"
)

// TestMain checks that no test leaves a goroutine behind, once the idle
// connections of the SDKs' HTTP client are closed.
func TestMain(m *testing.M) {
	code := m.Run()
	http.DefaultTransport.(*http.Transport).CloseIdleConnections()
	closeTransports()
	if code == 0 {
		// The Google libraries (Gemini's SDK, Vertex's auth) start
		// opencensus's stats worker in an init function: the program's,
		// not a test's, goroutine.
		if err := goleak.Find(goleak.IgnoreTopFunction("go.opencensus.io/stats/view.(*worker).start")); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// fakeEnv is the environment that points every provider at srv.
func fakeEnv(srv *fakemodel.Server) map[string]string {
	return map[string]string{"ANTHROPIC_API_KEY": "k-ant", "ANTHROPIC_BASE_URL": srv.URL,
		"OPENAI_API_KEY": "k-oai", "OPENAI_BASE_URL": srv.URL + "/v1",
		"GEMINI_API_KEY": "k-gem", "GOOGLE_GEMINI_BASE_URL": srv.URL}
}

// modelOf is the model id of a test that speaks api.
func modelOf(api string) string {
	return map[string]string{"anthropic": "anthropic/claude-sonnet-4-5", "openai": "openai/gpt-5",
		"openai-chat": "openai-chat/gpt-5", "gemini": "gemini/gemini-2.5-flash"}[api]
}

func open(t *testing.T, api string, srv *fakemodel.Server, retries int) provider.Client {
	t.Helper()
	id, env := target(t, api, srv)
	var dials dialLog
	if api == "bedrock" || api == "vertex" {
		t.Cleanup(func() {
			if a := dials.addresses(); len(a) != 0 {
				t.Errorf("dialled %v", a)
			}
		})
	}
	c, _, err := connect.Open(id, connect.Config{Getenv: func(k string) string { return env[k] }, MaxRetries: retries, HTTPClient: dials.client()})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// apis are the wire formats every client test runs against: Messages
// (direct, and through Bedrock and Vertex), Responses (openai/), Chat
// Completions (openai-chat/) and Gemini's.
var apis = []string{"anthropic", "openai", "openai-chat", "gemini", "bedrock", "vertex"}

func TestStreamToolUsesAndText(t *testing.T) {
	for _, api := range apis {
		t.Run(api, func(t *testing.T) {
			srv := fakemodel.Start(t, fakemodel.Reply{Blocks: []fakemodel.Block{
				fakemodel.Thinking("I should look at both files first."),
				fakemodel.Text("Reading both."),
				fakemodel.ToolUse("read", `{"path":"a.go","limit":20}`),
				fakemodel.ToolUse("grep", `{"pattern":"func \"main\"","path":"."}`),
			}, InputTokens: 100, OutputTokens: 50, CacheRead: 1000, CacheWrite: 200})
			c := open(t, api, srv, -1)
			var text strings.Builder
			var started []string
			resp, err := c.Stream(context.Background(), provider.Request{
				Model: "m", System: "be brief", Messages: []provider.Message{provider.UserText("look")},
				Tools: []provider.ToolDef{{Name: "read", InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)}},
			}, func(d provider.Delta) {
				switch d.Kind {
				case provider.TextDelta:
					text.WriteString(d.Text)
				case provider.ToolUseStart:
					started = append(started, d.Name)
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			if text.String() != "Reading both." || resp.Message.Text() != "Reading both." {
				t.Errorf("text streamed %q, assembled %q", text.String(), resp.Message.Text())
			}
			uses := resp.Message.ToolUses()
			if len(uses) != 2 || uses[0].Name != "read" || uses[1].Name != "grep" || strings.Join(started, ",") != "read,grep" {
				t.Fatalf("tool uses %+v, started %v", uses, started)
			}
			var in struct{ Pattern string }
			if err := json.Unmarshal(uses[1].Input, &in); err != nil || in.Pattern != `func "main"` {
				t.Errorf("input split mid-token reassembled as %s (%v)", uses[1].Input, err)
			}
			if uses[0].ID == "" || uses[0].ID == uses[1].ID {
				t.Errorf("tool use ids %q %q", uses[0].ID, uses[1].ID)
			}
			if resp.Stop != provider.StopToolUse {
				t.Errorf("stop %q", resp.Stop)
			}
			if resp.Usage.OutputTokens != 50 || resp.Usage.CacheReadTokens != 1000 || resp.Usage.InputTokens != 100 {
				t.Errorf("usage %+v", resp.Usage)
			}
			if resp.Cost <= 0 {
				t.Errorf("no cost for a priced model: %+v", resp)
			}
			var sent map[string]any
			json.Unmarshal(srv.Requests()[0].Body, &sent)
			if api == "gemini" {
				// Gemini streams by its path, not a field.
				sent = map[string]any{"stream": strings.HasSuffix(srv.Requests()[0].Path, ":streamGenerateContent")}
			}
			if api == "bedrock" {
				// So does Bedrock.
				sent = map[string]any{"stream": strings.HasSuffix(srv.Requests()[0].Path, "/invoke-with-response-stream")}
			}
			if sent["stream"] != true {
				t.Errorf("request did not stream: %s", srv.Requests()[0].Body)
			}
			if api == "anthropic" || api == "bedrock" || api == "vertex" {
				if !strings.Contains(string(srv.Requests()[0].Body), `"cache_control":{"type":"ephemeral"}`) {
					t.Errorf("no cache breakpoint: %s", srv.Requests()[0].Body)
				}
				if th := resp.Message.Blocks[0]; th.Kind != provider.ThinkingBlock || th.Signature == "" {
					t.Errorf("thinking block %+v", th)
				}
			}
		})
	}
}

func TestRoundTripOfAConversation(t *testing.T) {
	for _, api := range apis {
		t.Run(api, func(t *testing.T) {
			srv := fakemodel.Start(t, fakemodel.Call("read", `{"path":"a"}`), fakemodel.Say("done"))
			c := open(t, api, srv, -1)
			msgs := []provider.Message{provider.UserText("go")}
			tools := []provider.ToolDef{{Name: "read", InputSchema: json.RawMessage(`{"type":"object"}`)}}
			resp, err := c.Stream(context.Background(), provider.Request{Model: "m", Messages: msgs, Tools: tools}, nil)
			if err != nil {
				t.Fatal(err)
			}
			use := resp.Message.ToolUses()[0]
			msgs = append(msgs, resp.Message, provider.Message{Role: provider.User, Blocks: []provider.Block{
				{Kind: provider.ToolResultBlock, ToolUseID: use.ID, Text: "file body"}}})
			if resp, err = c.Stream(context.Background(), provider.Request{Model: "m", Messages: msgs, Tools: tools}, nil); err != nil {
				t.Fatal(err)
			}
			if resp.Message.Text() != "done" || resp.Stop != provider.StopEndTurn {
				t.Errorf("second answer %+v", resp)
			}
			body := string(srv.Requests()[1].Body)
			id := use.ID
			if api == "gemini" {
				// The Gemini API gives calls no id: a response names its call.
				id = `"functionResponse":{"name":"read"`
			}
			if !strings.Contains(body, id) || !strings.Contains(body, "file body") {
				t.Errorf("tool result not sent back: %s", body)
			}
		})
	}
}

func TestRetriesHonourRetryAfter(t *testing.T) {
	for _, api := range apis {
		t.Run(api, func(t *testing.T) {
			srv := fakemodel.Start(t,
				fakemodel.Reply{Status: 429, RetryAfter: "1"},
				fakemodel.Reply{Status: 529},
				fakemodel.Say("ok"))
			c := open(t, api, srv, 3)
			start := time.Now()
			resp, err := c.Stream(context.Background(), provider.Request{Model: "m", Messages: []provider.Message{provider.UserText("hi")}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if resp.Message.Text() != "ok" || resp.Retries != 2 || len(srv.Requests()) != 3 {
				t.Errorf("answer %+v after %d requests", resp, len(srv.Requests()))
			}
			if el := time.Since(start); el < time.Second {
				t.Errorf("retry-after: 1 was not waited for (%v)", el)
			}
		})
	}
}

func TestGivesUpWithTheStatus(t *testing.T) {
	srv := fakemodel.Start(t, fakemodel.Reply{Status: 400, Blocks: []fakemodel.Block{fakemodel.Text("max_tokens too large")}})
	c := open(t, "anthropic", srv, 3)
	_, err := c.Stream(context.Background(), provider.Request{Model: "m", Messages: []provider.Message{provider.UserText("hi")}}, nil)
	var ce *provider.CallError
	if !errors.As(err, &ce) || ce.StatusCode() != 400 || !strings.Contains(err.Error(), "max_tokens too large") || len(srv.Requests()) != 1 {
		t.Fatalf("err %v after %d requests", err, len(srv.Requests()))
	}
}

// An error the service reports in a stream that had begun (Anthropic's
// overloaded_error event, the Responses API's error event with
// server_error, Gemini's error piece, Bedrock's serviceUnavailableException
// frame) is tried again when nothing was
// shown, and fails the call with its message when something was.
func TestOverloadedMidStreamIsRetriedWhenNothingWasShown(t *testing.T) {
	for _, api := range apis {
		t.Run(api, func(t *testing.T) {
			failing := fakemodel.Reply{Blocks: []fakemodel.Block{fakemodel.Text("par"), fakemodel.Text("tial")}, StreamError: "overloaded_error"}
			srv := fakemodel.Start(t, failing, fakemodel.Say("whole"), failing)
			c := open(t, api, srv, 2)
			req := provider.Request{Model: "m", Messages: []provider.Message{provider.UserText("hi")}}
			resp, err := c.Stream(context.Background(), req, nil)
			if err != nil || resp.Message.Text() != "whole" {
				t.Fatalf("%+v %v", resp, err)
			}
			_, err = c.Stream(context.Background(), req, func(provider.Delta) {})
			if err == nil || !strings.Contains(strings.ToLower(err.Error()), map[string]string{"anthropic": "overloaded", "openai": "the server had an error", "openai-chat": "the server had an error", "gemini": "overloaded",
				"bedrock": "serviceunavailable", "vertex": "overloaded"}[api]) || len(srv.Requests()) != 3 {
				t.Errorf("err %v after %d requests", err, len(srv.Requests()))
			}
		})
	}
}

func TestCancelStopsTheStream(t *testing.T) {
	for _, api := range apis {
		t.Run(api, func(t *testing.T) {
			hold := make(chan struct{})
			defer close(hold)
			srv := fakemodel.Start(t, fakemodel.Reply{Blocks: []fakemodel.Block{fakemodel.Text("thinking..."), fakemodel.Text("never")}, Hold: hold})
			c := open(t, api, srv, 3)
			ctx, cancel := context.WithCancel(context.Background())
			_, err := c.Stream(ctx, provider.Request{Model: "m", Messages: []provider.Message{provider.UserText("hi")}}, func(d provider.Delta) {
				if d.Kind == provider.TextDelta {
					cancel()
				}
			})
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("err %v, want context.Canceled", err)
			}
		})
	}
}

func TestMissingKeyNamesTheVariable(t *testing.T) {
	for id, v := range map[string]string{"anthropic/claude-sonnet-4-5": "ANTHROPIC_API_KEY", "openai/gpt-5": "OPENAI_API_KEY",
		"openai-chat/gpt-5": "OPENAI_API_KEY", "gemini/gemini-2.5-pro": "GEMINI_API_KEY"} {
		_, _, err := connect.Open(id, connect.Config{Getenv: func(string) string { return "" }})
		var mk *connect.MissingKeyError
		if !errors.As(err, &mk) || !strings.Contains(err.Error(), v) {
			t.Errorf("%s: %v", id, err)
		}
	}
	if _, _, err := connect.Open("ollama/qwen3:8b", connect.Config{Getenv: func(string) string { return "" }}); err != nil {
		t.Errorf("ollama needs no key: %v", err)
	}
	google := func(k string) string {
		if k == connect.GoogleAPIKeyVar {
			return "k"
		}
		return ""
	}
	if _, _, err := connect.Open("gemini/gemini-2.5-pro", connect.Config{Getenv: google}); err != nil {
		t.Errorf("GOOGLE_API_KEY is Gemini's key too: %v", err)
	}
	if _, _, err := connect.Open("nope/x", connect.Config{}); err == nil || !strings.Contains(err.Error(), "anthropic") {
		t.Errorf("unknown provider: %v", err)
	}
}
