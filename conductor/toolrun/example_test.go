package toolrun_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/indusagi/induscode/conductor/toolrun"
	"github.com/indusagi/induscode/deck"
	"github.com/indusagi/induscode/internal/fakemodel"
	"github.com/indusagi/induscode/provider"
	"github.com/indusagi/induscode/provider/connect"
)

// A complete agent on the library: a deck's tools offered to a model,
// its tool uses run through the deck's Box (read-only ones together),
// their results sent back, until the model answers. The fake model
// server stands in for ANTHROPIC_BASE_URL.
func Example_agent() {
	srv, _ := fakemodel.Listen(fakemodel.Call("ls", `{}`, "read", `{"path":"notes.txt"}`), fakemodel.Say("The notes say: ship it."))
	defer srv.Close()
	dir, _ := os.MkdirTemp("", "agent")
	defer os.RemoveAll(dir)
	os.WriteFile(dir+"/notes.txt", []byte("ship it\n"), 0o644)

	d, err := deck.Provision(deck.Survey, deck.Setup{Dir: dir})
	if err != nil {
		log.Fatal(err)
	}
	defer d.Close()
	box := d.Box()
	model, _, err := connect.Open("anthropic/claude-sonnet-4-5", connect.Config{APIKey: "test", BaseURL: srv.URL})
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	msgs := []provider.Message{provider.UserText("What do the notes say?")}
	for {
		resp, err := model.Stream(ctx, provider.Request{
			Model: "claude-sonnet-4-5", Messages: msgs, Tools: toolrun.Defs(box.Specs()),
		}, nil)
		if err != nil {
			log.Fatal(err)
		}
		msgs = append(msgs, resp.Message)
		uses := resp.Message.ToolUses()
		if len(uses) == 0 {
			fmt.Println(resp.Message.Text())
			return
		}
		results := toolrun.Run(ctx, box, uses, toolrun.Options{})
		for _, r := range results {
			fmt.Println("tool result, failed:", r.IsError)
		}
		msgs = append(msgs, provider.Message{Role: provider.User, Blocks: results})
	}
	// Output:
	// tool result, failed: false
	// tool result, failed: false
	// The notes say: ship it.
}
