package agent

import (
	"context"
	"os"

	"github.com/indusagi/induscode/cmd/internal/agent/tui"
	"github.com/indusagi/induscode/cmd/internal/cli"
)

// runTerminal is indusr-agent alone in a terminal: the conversation of
// the terminal UI (package tui), with the flags of -p (model, mode,
// rules, --resume, --continue).
func runTerminal(ctx context.Context, r cli.AgentRun) error {
	dir, err := r.WorkDir()
	if err != nil {
		return err
	}
	co, err := baseOptions(r, dir)
	if err != nil {
		return err
	}
	if err := tui.Run(ctx, co, r.Stdin, r.Stdout, os.Environ(), r.Stderr); err != nil {
		return openError(err)
	}
	return nil
}
