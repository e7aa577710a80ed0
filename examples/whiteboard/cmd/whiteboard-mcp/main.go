// Command whiteboard-mcp serves one whiteboard to an MCP client over stdin
// and stdout: the model gets add_text and move, nothing else unless -deck
// also asks for the deck's read-only tools of -dir. Register it with a
// client as a stdio server, for example:
//
//	claude mcp add whiteboard -- go -C /path/to/induscode run ./examples/whiteboard/cmd/whiteboard-mcp
//
// The board lives as long as the process; every change is logged to
// stderr.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/indusagi/induscode/deck"
	"github.com/indusagi/induscode/examples/whiteboard"
	"github.com/indusagi/induscode/intent"
	"github.com/indusagi/induscode/serve"
	"github.com/indusagi/induscode/session"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run is the whole program, so that tests can drive it over pipes.
func run(ctx context.Context, args []string, in io.ReadCloser, out io.WriteCloser, errOut io.Writer) int {
	flags := flag.NewFlagSet("whiteboard-mcp", flag.ContinueOnError)
	flags.SetOutput(errOut)
	withDeck := flags.Bool("deck", false, "also serve the deck's read-only tools (read, ls, grep, find, ...) for -dir")
	dir := flags.String("dir", "", "the workspace of -deck (default: the current directory)")
	if err := flags.Parse(args); err != nil {
		return 2
	}
	log := slog.New(slog.NewTextHandler(errOut, nil))

	set, err := whiteboard.Intents()
	if err != nil {
		fmt.Fprintln(errOut, "whiteboard-mcp:", err)
		return 1
	}
	board := whiteboard.New()
	stopLog := board.Subscribe(func(b whiteboard.Board) {
		log.Info("board changed", "elements", len(b.Elements), "selected", len(b.Selected))
	})
	defer stopLog()

	srv, err := serve.New(serve.Options{
		Session: session.Options{
			Dir:     *dir,
			Profile: deck.Authoring, // the read-only built-ins
			NoTools: !*withDeck,
			NoMCP:   true,
			Extra:   intent.Tools(set, board),
		},
		Version:      "example",
		Log:          log,
		Instructions: instructionsFor(*withDeck),
	})
	if err != nil {
		fmt.Fprintln(errOut, "whiteboard-mcp:", err)
		return 1
	}
	if err := srv.RunStdio(ctx, in, out); err != nil {
		fmt.Fprintln(errOut, "whiteboard-mcp:", err)
		return 1
	}
	return 0
}

// instructionsFor says what the server serves, for the client's model:
// the board's tools, and the deck's read-only ones with -deck.
func instructionsFor(withDeck bool) string {
	s := "whiteboard: one shared board of text notes. add_text puts a note at (x, y) and returns its id; " +
		"move places an element's top-left corner at (x, y) by that id."
	if withDeck {
		s += " The read-only tools read, ls, grep, find, todo_read, webfetch and websearch look at the workspace " +
			"and the web; nothing here writes files or runs commands."
	}
	return s
}
