package connect_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/indusagi/induscode/internal/fakemodel"
	"github.com/indusagi/induscode/provider"
	"github.com/indusagi/induscode/provider/connect"
)

// Tool arguments that are not JSON (cut off at the output limit, or a
// small model's mistake) are kept as their text, so the message still
// encodes for the transcript, and are told apart by BrokenInput.
func TestBrokenToolArgumentsAreKept(t *testing.T) {
	for _, api := range apis {
		if api == "gemini" {
			continue // Gemini's wire carries arguments as an object: they cannot arrive broken
		}
		for _, tt := range []struct {
			name, input, stop string
		}{
			{"cut off", `{"path":"a.txt","content":"hal`, "max_tokens"},
			{"not JSON", `{"path": a.txt}`, ""},
		} {
			t.Run(api+"/"+tt.name, func(t *testing.T) {
				srv := fakemodel.Start(t, fakemodel.Reply{Blocks: []fakemodel.Block{fakemodel.ToolUse("write", tt.input)}, Stop: tt.stop})
				c := open(t, api, srv, -1)
				resp, err := c.Stream(context.Background(), provider.Request{Model: "m", Messages: []provider.Message{provider.UserText("write")}}, nil)
				if err != nil {
					t.Fatal(err)
				}
				uses := resp.Message.ToolUses()
				if len(uses) != 1 {
					t.Fatalf("uses %+v", uses)
				}
				text, broken := uses[0].BrokenInput()
				if !broken || text != tt.input {
					t.Errorf("input %s: broken %v, text %q", uses[0].Input, broken, text)
				}
				if _, err := json.Marshal(resp.Message); err != nil {
					t.Errorf("the message does not encode: %v", err)
				}
			})
		}
	}
}

// Arguments a server encoded twice (a string holding the object) are
// taken as the object.
func TestDoublyEncodedArgumentsAreDecoded(t *testing.T) {
	srv := fakemodel.Start(t, fakemodel.Call("read", `"{\"path\":\"a.go\"}"`))
	c := open(t, "openai", srv, -1)
	resp, err := c.Stream(context.Background(), provider.Request{Model: "m", Messages: []provider.Message{provider.UserText("read")}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if in := resp.Message.ToolUses()[0].Input; string(in) != `{"path":"a.go"}` {
		t.Errorf("input %s", in)
	}
}

// Redacted thinking is kept and goes back as it came; pause_turn is its
// own stop reason.
func TestRedactedThinkingAndPauseTurn(t *testing.T) {
	srv := fakemodel.Start(t,
		fakemodel.Reply{Blocks: []fakemodel.Block{fakemodel.RedactedThinking("EmwKAhgBEgy3va"), fakemodel.Text("Searching.")}, Stop: "pause_turn"},
		fakemodel.Say("ok"))
	c := open(t, "anthropic", srv, -1)
	msgs := []provider.Message{provider.UserText("find it")}
	resp, err := c.Stream(context.Background(), provider.Request{Model: "m", Messages: msgs}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Stop != provider.StopPauseTurn {
		t.Errorf("stop %q", resp.Stop)
	}
	if b := resp.Message.Blocks[0]; b.Kind != provider.RedactedThinkingBlock || b.Data != "EmwKAhgBEgy3va" {
		t.Fatalf("first block %+v", b)
	}
	if _, err := c.Stream(context.Background(), provider.Request{Model: "m", Messages: append(msgs, resp.Message)}, nil); err != nil {
		t.Fatal(err)
	}
	var sent struct {
		Messages []struct {
			Content []map[string]any `json:"content"`
		} `json:"messages"`
	}
	json.Unmarshal(srv.Requests()[1].Body, &sent)
	if b := sent.Messages[1].Content[0]; b["type"] != "redacted_thinking" || b["data"] != "EmwKAhgBEgy3va" {
		t.Errorf("sent back %v", b)
	}
}

// A stream that stalls mid-answer ends after the idle bound with
// ErrStalled, where it hung until the caller gave up; one that stalls
// before showing anything is tried again.
func TestStalledStreamEnds(t *testing.T) {
	for _, api := range apis {
		t.Run(api, func(t *testing.T) {
			srv := fakemodel.Start(t,
				fakemodel.Reply{Stall: true},
				fakemodel.Say("second try"),
				fakemodel.Reply{Blocks: []fakemodel.Block{fakemodel.Text("partial"), fakemodel.Text("never")}, Stall: true})
			id, env := target(t, api, srv)
			env[connect.IdleTimeoutVar] = "1s"
			c, _, err := connect.Open(id, connect.Config{Getenv: func(k string) string { return env[k] }, MaxRetries: 1})
			if err != nil {
				t.Fatal(err)
			}
			req := provider.Request{Model: "m", Messages: []provider.Message{provider.UserText("hi")}}
			on := func(provider.Delta) {}
			resp, err := c.Stream(context.Background(), req, on)
			if err != nil || resp.Message.Text() != "second try" || resp.Retries != 1 {
				t.Fatalf("a stall before anything was shown: %+v %v", resp, err)
			}
			_, err = c.Stream(context.Background(), req, on)
			if !errors.Is(err, provider.ErrStalled) || len(srv.Requests()) != 3 {
				t.Fatalf("a stall mid-answer: %v after %d requests", err, len(srv.Requests()))
			}
		})
	}
}

func TestIdleTimeoutVariableMustBeADuration(t *testing.T) {
	_, _, err := connect.Open("anthropic/claude-sonnet-4-5", connect.Config{APIKey: "k", Getenv: func(k string) string {
		if k == connect.IdleTimeoutVar {
			return "five minutes"
		}
		return ""
	}})
	if err == nil || !strings.Contains(err.Error(), connect.IdleTimeoutVar) {
		t.Fatalf("err %v", err)
	}
}

// A stream whose connection drops mid-message is an error, never a half
// message taken for the answer: tried again when nothing was shown yet,
// failed with the cause when a piece already was.
func TestStreamCutMidMessage(t *testing.T) {
	for _, api := range apis {
		for _, how := range []string{"dropped", "ended early"} {
			t.Run(api+"/"+how, func(t *testing.T) { testStreamCut(t, api, how == "dropped") })
		}
	}
}

func testStreamCut(t *testing.T, api string, drop bool) {
	cut := fakemodel.Reply{Blocks: []fakemodel.Block{fakemodel.Text("Half an ans"), fakemodel.Text("wer never sent")}, Cut: drop, EndEarly: !drop}
	srv := fakemodel.Start(t, cut, fakemodel.Say("whole"), cut)
	c := open(t, api, srv, 2)
	req := provider.Request{Model: "m", Messages: []provider.Message{provider.UserText("hi")}}
	resp, err := c.Stream(context.Background(), req, nil)
	if err != nil || resp.Message.Text() != "whole" || resp.Retries != 1 {
		t.Fatalf("a cut before anything was shown: %+v %v", resp, err)
	}
	var shown strings.Builder
	resp, err = c.Stream(context.Background(), req, func(d provider.Delta) { shown.WriteString(d.Text) })
	if err == nil {
		t.Fatalf("a cut after %q was shown gave an answer: %+v", shown.String(), resp)
	}
	if !errors.Is(err, io.ErrUnexpectedEOF) || len(srv.Requests()) != 3 {
		t.Errorf("err %v after %d requests; want the unexpected end, not retried", err, len(srv.Requests()))
	}
}
