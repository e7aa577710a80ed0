package conductor_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/indusagi/induscode/conductor"
	"github.com/indusagi/induscode/internal/fakemodel"
	"github.com/indusagi/induscode/provider"
	"github.com/indusagi/induscode/transcript"
)

// A call whose arguments were cut off at the output limit is not run: it
// is answered with an error that says so, the conversation is saved and
// goes on, and the broken call goes back to the API in a form it takes.
func TestBrokenToolArgumentsAreAnsweredWithAnError(t *testing.T) {
	// Not Gemini's: its wire carries arguments as an object.
	for _, api := range []string{"anthropic", "openai", "openai-chat"} {
		t.Run(api, func(t *testing.T) {
			dir := t.TempDir()
			srv := fakemodel.Start(t,
				fakemodel.Reply{Blocks: []fakemodel.Block{fakemodel.ToolUse("write", `{"path":"a.txt","content":"hal`)}, Stop: "max_tokens"},
				fakemodel.Say("I will write it in parts."))
			c := open(t, dir, srv, conductor.Options{Model: modelOf(api), Mode: conductor.AcceptEdits})
			res, err := c.Run(context.Background(), "write a.txt")
			if err != nil || res.IsError || res.Text != "I will write it in parts." {
				t.Fatalf("%+v %v; refusals %q", res, err, srv.Refusals())
			}
			if _, err := os.Stat(filepath.Join(dir, "a.txt")); err == nil {
				t.Error("the cut-off call was run")
			}
			if body := string(srv.Requests()[1].Body); !strings.Contains(body, "not complete JSON") || !strings.Contains(body, `content\\\":\\\"hal`) {
				t.Errorf("the error result does not name the problem and quote the arguments: %s", body)
			}
			_, lines, err := transcript.Open(dir, c.SessionID())
			if err != nil {
				t.Fatal(err)
			}
			if msgs := transcript.Messages(lines); len(msgs) != 4 {
				t.Errorf("the transcript holds %d messages, want 4", len(msgs))
			}
		})
	}
}

// With thinking on, a tool loop whose thinking was redacted sends the
// redacted block back: the API refuses the tool results otherwise.
func TestRedactedThinkingGoesBackInAToolLoop(t *testing.T) {
	srv := fakemodel.Start(t,
		fakemodel.Reply{Blocks: []fakemodel.Block{fakemodel.RedactedThinking("EmwKAhgBEgy3va"), fakemodel.ToolUse("ls", `{}`)}},
		fakemodel.Say("listed"))
	c := open(t, t.TempDir(), srv, conductor.Options{Thinking: "low"})
	res, err := c.Run(context.Background(), "list")
	if err != nil || res.IsError || res.Text != "listed" {
		t.Fatalf("%+v %v; refusals %q", res, err, srv.Refusals())
	}
	if b := c.Messages()[1].Blocks[0]; b.Kind != provider.RedactedThinkingBlock {
		t.Errorf("the assistant message starts with %+v", b)
	}
}

// A paused turn is not the end: the paused message goes back as the last
// one and the model carries on.
func TestPauseTurnCarriesOn(t *testing.T) {
	srv := fakemodel.Start(t,
		fakemodel.Reply{Blocks: []fakemodel.Block{fakemodel.Text("Searching the web...")}, Stop: "pause_turn"},
		fakemodel.Say("Found it."))
	c := open(t, t.TempDir(), srv, conductor.Options{})
	res, err := c.Run(context.Background(), "find it")
	if err != nil || res.IsError || res.Text != "Found it." || res.Turns != 2 {
		t.Fatalf("%+v %v", res, err)
	}
	s := decode(t, srv.Requests()[1])
	if last := s.Messages[len(s.Messages)-1]; last.Role != "assistant" || last.Content[0].Text != "Searching the web..." {
		t.Errorf("the second call does not end with the paused message: %+v", last)
	}
}

// With thinking on, the thinking of the message whose tool calls were
// answered goes back as it came (the fake model checks its signature
// and that it leads the message, as the API does), across turns.
func TestThinkingGoesBackUnchangedInAToolLoop(t *testing.T) {
	srv := fakemodel.Start(t,
		fakemodel.Reply{Blocks: []fakemodel.Block{fakemodel.Thinking("I should list the folder first."), fakemodel.ToolUse("ls", `{}`)}},
		fakemodel.Reply{Blocks: []fakemodel.Block{fakemodel.Thinking("Now the tree."), fakemodel.Text("Listing again."), fakemodel.ToolUse("ls", `{}`)}},
		fakemodel.Say("listed twice"))
	c := open(t, t.TempDir(), srv, conductor.Options{Thinking: "medium"})
	res, err := c.Run(context.Background(), "list")
	if err != nil || res.IsError || res.Text != "listed twice" {
		t.Fatalf("%+v %v; refusals %q", res, err, srv.Refusals())
	}
	if r := srv.Refusals(); len(r) != 0 {
		t.Errorf("refusals %q", r)
	}
}
