package deck_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"

	"github.com/indusagi/induscode/deck"
)

// Provision a deck for a project directory and call a tool through its Box.
func Example() {
	dir, err := os.MkdirTemp("", "project")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	d, err := deck.Provision(deck.All, deck.Context{Dir: dir})
	if err != nil {
		log.Fatal(err)
	}
	box := d.Box()
	ctx := context.Background()

	box.Run(ctx, "todo_set", json.RawMessage(`{"todos":[
		{"content":"Read the code","status":"completed","activeForm":"Reading the code"},
		{"content":"Fix the bug","status":"in_progress","activeForm":"Fixing the bug"}]}`))
	res := box.Run(ctx, "todo_read", nil)
	fmt.Println(res.Blocks[0].Text)

	res = box.Run(ctx, "no_such_tool", nil)
	fmt.Println(res.IsError)
	// Output:
	// [x] Read the code
	// [~] Fixing the bug
	// true
}
