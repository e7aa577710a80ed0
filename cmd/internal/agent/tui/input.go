package tui

import (
	"cmp"
	"context"
	"errors"

	tea "charm.land/bubbletea/v2"

	"github.com/indusagi/induscode/cmd/internal/agent/input"
)

// command is a slash command offered to the input.
type command struct{ Name, Summary string }

// inputBox is the prompt input (package input: history, Ctrl-R, pastes,
// @ and / completion) with the program's messages: what it sends arrives
// as a submitMsg.
type inputBox struct {
	m input.Model
}

// resourceSource is a backend whose session mounts MCP servers: their
// resources complete after @ and join the prompts that name them.
type resourceSource interface {
	Resources(ctx context.Context) ([]input.Resource, error)
	ReadResource(ctx context.Context, server, uri string) (string, error)
}

func newInputBox(dir string, cmds []command, color bool, res resourceSource) inputBox {
	cfg := input.Config{Root: dir, Commands: inputCommands(cmds), NoColor: !color, RealCursor: true}
	if res != nil {
		cfg.Resources, cfg.Read = res.Resources, res.ReadResource
	}
	return inputBox{m: input.New(cfg)}
}

func inputCommands(cmds []command) []input.Command {
	out := make([]input.Command, len(cmds))
	for i, c := range cmds {
		out[i] = input.Command{Name: c.Name, Summary: c.Summary}
	}
	return out
}

func (b *inputBox) SetWidth(w int)          { b.m.SetWidth(w) }
func (b *inputBox) Focus() tea.Cmd          { return b.m.Focus() }
func (b *inputBox) Blur()                   { b.m.Blur() }
func (b *inputBox) Value() string           { return b.m.Value() }
func (b *inputBox) SetValue(s string)       { b.m.SetValue(s) }
func (b *inputBox) Capturing() bool         { return b.m.Capturing() }
func (b *inputBox) SetCommands(c []command) { b.m.SetCommands(inputCommands(c)) }
func (b inputBox) View() string             { return b.m.View() }

// Cursor is where the terminal's cursor goes, relative to the input's
// top left; nil when the input does not have the keys.
func (b inputBox) Cursor() *tea.Cursor { return b.m.Cursor() }

func (b inputBox) Update(msg tea.Msg) (inputBox, tea.Cmd) {
	var cmd tea.Cmd
	b.m, cmd = b.m.Update(msg)
	return b, asSubmit(cmd)
}

// asSubmit turns the input's SubmitMsg into the program's submitMsg,
// within batches too; the input's other messages come back to it.
func asSubmit(cmd tea.Cmd) tea.Cmd {
	if cmd == nil {
		return nil
	}
	return func() tea.Msg {
		switch msg := cmd().(type) {
		case input.SubmitMsg:
			return submitMsg{typed: msg.Typed, prompt: msg.Prompt}
		case tea.BatchMsg:
			for i, c := range msg {
				msg[i] = asSubmit(c)
			}
			return msg
		default:
			return msg
		}
	}
}

var errNoMCP = errors.New("no MCP server is mounted in this session")

// Resources lists the MCP resources of the session's servers.
func (c Conductor) Resources(ctx context.Context) ([]input.Resource, error) {
	f := c.Session().Fleet()
	if f == nil {
		return nil, nil
	}
	res, err := f.Resources(ctx)
	out := make([]input.Resource, len(res))
	for i, r := range res {
		out[i] = input.Resource{Server: r.Server, URI: r.URI, Name: cmp.Or(r.Title, r.Name)}
	}
	return out, err
}

// ReadResource reads one MCP resource as text.
func (c Conductor) ReadResource(ctx context.Context, server, uri string) (string, error) {
	f := c.Session().Fleet()
	if f == nil {
		return "", errNoMCP
	}
	return f.ReadResource(ctx, server, uri)
}
