// Package terminal is indusr-tui's command line: indusr-agent's (package
// agent), with a conversation in the terminal (package tui) when the
// program runs in one with no command. It is a program of its own so that
// the terminal UI's dependencies, above all the Markdown renderer's syntax
// highlighter, which registers hundreds of lexers and styles at start,
// weigh only on the program a person starts by hand, not on `indusr -p`
// and the SDK host that scripts and apps start again and again.
package terminal

import (
	"context"
	"io"
	"os"

	"github.com/indusagi/induscode/cmd/internal/agent"
	"github.com/indusagi/induscode/cmd/internal/agent/tui"
	"github.com/indusagi/induscode/cmd/internal/cli"
)

// Main runs indusr-tui with args (without the program name) and returns
// its exit code.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	p := agent.Program()
	p.Interactive = run
	return cli.MainWith(p, args, stdin, stdout, stderr)
}

// run is the program alone in a terminal: the conversation of the
// terminal UI, with the flags of -p (model, mode, rules, --resume,
// --continue).
func run(ctx context.Context, r cli.AgentRun) error {
	dir, err := r.WorkDir()
	if err != nil {
		return err
	}
	co, err := agent.ConductorOptions(r, dir)
	if err != nil {
		return err
	}
	if err := tui.Run(ctx, co, r.Stdin, r.Stdout, os.Environ(), r.Stderr); err != nil {
		return agent.OpenError(err)
	}
	return nil
}
