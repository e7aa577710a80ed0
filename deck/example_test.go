package deck_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/indusagi/induscode/deck"
	"github.com/indusagi/induscode/deck/cards"
	"github.com/indusagi/induscode/tools/web"
	"github.com/indusagi/induscode/workspace"
)

// Provision a deck for a project directory and call a tool through its Box.
func Example() {
	dir, err := os.MkdirTemp("", "project")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	d, err := deck.Provision(deck.All, deck.Setup{Dir: dir})
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

// Wire the app cards' host handles: a command-line agent for task, memory
// kept in the workspace, and webfetch refusing private addresses.
func Example_framework() {
	dir, err := os.MkdirTemp("", "project")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	d, err := deck.Provision(deck.All, deck.Setup{Dir: dir, Framework: deck.Framework{
		Delegate: &cards.CommandRunner{Dir: dir, Roster: []cards.CommandAgent{
			// A real roster names an agent CLI: {"claude", "-p", "{objective}"}.
			{Name: "echo", Description: "repeats the objective", Argv: []string{"echo", "objective:", "{objective}"}},
		}},
		Memory: cards.NewFileMemory(workspace.At(dir)),
		Web:    web.Options{RefusePrivate: true},
	}})
	if err != nil {
		log.Fatal(err)
	}
	defer d.Close()
	box := d.Box()
	ctx := context.Background()

	fmt.Print(box.Run(ctx, "task", json.RawMessage(`{"objective":"rename foo to bar"}`)).PlainText())
	box.Run(ctx, "memory", json.RawMessage(`{"action":"append","text":"foo is now bar"}`))
	note, _ := os.ReadFile(filepath.Join(dir, ".indusvx", "memory.md"))
	fmt.Println(string(note))
	fmt.Println(box.Run(ctx, "webfetch", json.RawMessage(`{"url":"http://127.0.0.1:9/"}`)).IsError)
	// Output:
	// objective: rename foo to bar
	// foo is now bar
	// true
}
