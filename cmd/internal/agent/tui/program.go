package tui

import (
	"context"
	"errors"
	"fmt"
	"io"

	tea "charm.land/bubbletea/v2"

	"github.com/indusagi/induscode/conductor"
)

var errNoAddons = errors.New("no addons are loaded in this session")

// Run opens the conversation of o and holds it in the terminal until the
// user quits; /resume opens another in its place. o.OnEvent and o.Ask
// are the terminal's. The terminal is restored however the program ends,
// a panic included, and every process the conversation's tools started
// is stopped before Run returns. Close's problems go to warn.
func Run(ctx context.Context, o conductor.Options, in io.Reader, out io.Writer, env []string, warn io.Writer) error {
	for {
		next, err := runOnce(ctx, o, in, out, env, warn)
		if err != nil || next == nil {
			return err
		}
		o.Resume, o.Continue = next.resume, false
	}
}

func runOnce(ctx context.Context, o conductor.Options, in io.Reader, out io.Writer, env []string, warn io.Writer) (next *reopen, err error) {
	br := &bridge{}
	o.OnEvent = br.event
	o.Ask = br.ask
	c, err := conductor.Open(ctx, o)
	if err != nil {
		return nil, err
	}
	br.dir = c.Session().Dir()
	m := New(Conductor{c}, Config{Env: env, Begin: c.Begin, Post: br.post})
	// 120 frames a second, Bubble Tea's most: a key waits for the next
	// frame, 4 ms on average rather than 8 at the default 60.
	p := tea.NewProgram(m, tea.WithContext(ctx), tea.WithInput(in), tea.WithOutput(out), tea.WithEnvironment(env), tea.WithFPS(120))
	br.setSend(p.Send)
	defer func() {
		// A panic outside the program's own goroutines (they recover
		// theirs and restore the terminal) must not leave the terminal
		// raw and in the alternate screen.
		if r := recover(); r != nil {
			p.Kill()
			m.stop()
			next, err = nil, fmt.Errorf("the terminal UI crashed: %v", r)
		}
		if cerr := c.Close(); cerr != nil {
			fmt.Fprintln(warn, "indusr:", cerr)
		}
	}()
	final, err := p.Run()
	m.stop() // a run still going is cancelled; Close stops its processes
	if fm, ok := final.(Model); ok && fm.reopen != nil && err == nil {
		return fm.reopen, nil
	}
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		return nil, nil // a signal ended the program; the caller says so
	}
	return nil, err
}
