package whiteboard_test

import (
	"context"
	"fmt"
	"log"
	"log/slog"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/indusagi/induscode/deck"
	"github.com/indusagi/induscode/examples/whiteboard"
	"github.com/indusagi/induscode/intent"
	"github.com/indusagi/induscode/serve"
	"github.com/indusagi/induscode/session"
)

// Graft the whiteboard's tools onto a deck and call them by name, as an
// agent would; the user interface dispatches the hidden intents directly.
func Example() {
	dir, err := os.MkdirTemp("", "project")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	set, err := whiteboard.Intents()
	if err != nil {
		log.Fatal(err)
	}
	board := whiteboard.New()

	d, err := deck.Provision(deck.Survey, deck.Setup{Dir: dir})
	if err != nil {
		log.Fatal(err)
	}
	defer d.Close()
	if err := d.Graft(intent.Tools(set, board)...); err != nil {
		log.Fatal(err)
	}
	box := d.Box()
	ctx := context.Background()

	res := box.Run(ctx, "add_text", []byte(`{"x":10,"y":20,"content":"hello"}`))
	fmt.Println(res.PlainText())
	res = box.Run(ctx, "move", []byte(`{"id":"e1","x":0,"y":0}`))
	fmt.Println(res.PlainText())
	res = box.Run(ctx, "move", []byte(`{"id":"e9","x":0,"y":0}`))
	fmt.Println(res.IsError, res.PlainText())
	res = box.Run(ctx, "undo", nil) // hidden: not a tool
	fmt.Println(res.IsError)

	board.Dispatch(ctx, whiteboard.Select{IDs: []string{"e1"}})
	fmt.Println(board.State())
	// Output:
	// {"id":"e1"}
	// {"id":"e1","x":0,"y":0,"content":"hello"}
	// true no element "e9"; the board has e1
	// true
	// *e1 (0, 0) "hello"
}

// A lesson is a parent of two whiteboard slides. The model reaches a slide
// by naming it; the slide is created on first use and the lesson follows
// its changes.
func Example_lesson() {
	wb, err := whiteboard.Intents()
	if err != nil {
		log.Fatal(err)
	}
	lesson := whiteboard.NewLesson("Halves", "intro", "summary")
	slides, err := intent.ChildTools(wb, lesson, "slide", "the slide to change: intro or summary")
	if err != nil {
		log.Fatal(err)
	}
	addText := slides[0]
	ctx := context.Background()

	addText.Run(ctx, []byte(`{"slide":"intro","x":0,"y":0,"content":"What is a half?"}`), nil)
	addText.Run(ctx, []byte(`{"slide":"summary","x":0,"y":0,"content":"1/2 = 2/4"}`), nil)
	fmt.Println(lesson.Children())
	fmt.Println(lesson.State())
	// Output:
	// [intro summary]
	// "Halves": 2 notes
	//   intro: What is a half?
	//   summary: 1/2 = 2/4
}

// Serve the whiteboard over MCP: session.Options.Extra adds its tools to
// every session the server opens (NoTools leaves out the deck's own). A
// client lists and calls them like any other MCP tools.
func Example_serve() {
	dir, err := os.MkdirTemp("", "project")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	set, err := whiteboard.Intents()
	if err != nil {
		log.Fatal(err)
	}
	board := whiteboard.New()
	srv, err := serve.New(serve.Options{Session: session.Options{
		Dir: dir, NoTools: true, Extra: intent.Tools(set, board),
	}, Log: slog.New(slog.DiscardHandler)})
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()

	ctx := context.Background()
	serverEnd, clientEnd := mcp.NewInMemoryTransports()
	ss, err := srv.MCP().Connect(ctx, serverEnd, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer ss.Close()
	client := mcp.NewClient(&mcp.Implementation{Name: "example", Version: "1"}, nil)
	cs, err := client.Connect(ctx, clientEnd, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()

	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		log.Fatal(err)
	}
	for _, t := range list.Tools {
		fmt.Println(t.Name)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "add_text", Arguments: map[string]any{"x": 1, "y": 1, "content": "served"}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	fmt.Println(board.State())
	// Output:
	// add_text
	// move
	// {"id":"e1"}
	//  e1 (1, 1) "served"
}
