package tui

import (
	"context"
	"errors"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	mcpbridge "github.com/indusagi/induscode/bridge"
)

// promptSource is a backend whose session mounts MCP servers: their
// prompts are slash commands, /server:name args.
type promptSource interface {
	Prompts(ctx context.Context) ([]mcpbridge.Prompt, error)
	GetPrompt(ctx context.Context, server, name string, args map[string]string) (string, error)
}

func (c Conductor) Prompts(ctx context.Context) ([]mcpbridge.Prompt, error) {
	f := c.Session().Fleet()
	if f == nil {
		return nil, nil
	}
	return f.Prompts(ctx)
}

func (c Conductor) GetPrompt(ctx context.Context, server, name string, args map[string]string) (string, error) {
	f := c.Session().Fleet()
	if f == nil {
		return "", errors.New("no MCP server is mounted")
	}
	return f.GetPrompt(ctx, server, name, args)
}

// promptsMsg carries the MCP prompts listed at the start.
type promptsMsg struct {
	prompts []mcpbridge.Prompt
	err     error
}

// listPrompts lists the servers' prompts off the UI's goroutine.
func (s *state) listPrompts() tea.Cmd {
	src, ok := s.b.(promptSource)
	if !ok {
		return nil
	}
	return func() tea.Msg {
		ps, err := src.Prompts(context.Background())
		return promptsMsg{prompts: ps, err: err}
	}
}

func (s *state) onPrompts(msg promptsMsg) {
	s.mcpPrompts = msg.prompts
	s.in.SetCommands(s.commandList())
	if msg.err != nil {
		s.conv.add(&entry{kind: noticeEntry, text: msg.err.Error()})
	}
}

// promptName is the slash command of an MCP prompt.
func promptName(p mcpbridge.Prompt) string { return p.Server + ":" + p.Name }

// mcpPrompt runs /server:name args: the arguments go to the prompt's
// arguments in order (the last takes the rest of the line), and the text
// the server returns is sent as the prompt.
func (m Model) mcpPrompt(typed, name, arg string) (tea.Cmd, bool) {
	var p *mcpbridge.Prompt
	for i := range m.mcpPrompts {
		if promptName(m.mcpPrompts[i]) == name {
			p = &m.mcpPrompts[i]
		}
	}
	src, ok := m.b.(promptSource)
	if p == nil || !ok {
		return nil, false
	}
	if m.running {
		m.note = "A prompt is running: press esc first."
		return func() tea.Msg { return nil }, true
	}
	args := map[string]string{}
	words := strings.Fields(arg)
	for i, a := range p.Arguments {
		switch {
		case i >= len(words):
		case i == len(p.Arguments)-1:
			args[a] = strings.Join(words[i:], " ")
		default:
			args[a] = words[i]
		}
	}
	server, pname := p.Server, p.Name
	m.note = "Getting /" + name + "…"
	return func() tea.Msg {
		text, err := src.GetPrompt(context.Background(), server, pname, args)
		if err != nil {
			return doneMsg{err: fmt.Errorf("/%s: %w", name, err)}
		}
		return mcpPromptMsg{typed: typed, text: text}
	}, true
}

// mcpPromptMsg is an MCP prompt's text, to send as the user's prompt.
type mcpPromptMsg struct{ typed, text string }

// statusSource is a backend that reports its MCP servers' health.
type statusSource interface {
	MCPStatus() []mcpbridge.ServerStatus
}

func (c Conductor) MCPStatus() []mcpbridge.ServerStatus {
	if f := c.Session().Fleet(); f != nil {
		return f.Status()
	}
	return nil
}

// mcpStatus is /mcp: each server's state, tools, restarts and last
// error, and where its log is.
func mcpStatus(st []mcpbridge.ServerStatus) string {
	var b strings.Builder
	b.WriteString("MCP servers:")
	for _, s := range st {
		fmt.Fprintf(&b, "\n%s: %s, %s", s.Name, s.State, plural(s.Tools, "tool"))
		if s.Restarts > 0 {
			fmt.Fprintf(&b, ", restarted %d times", s.Restarts)
		}
		if s.LastError != "" {
			fmt.Fprintf(&b, "; last error: %s", oneLine(s.LastError))
		}
		if s.Log != "" {
			fmt.Fprintf(&b, " (log %s)", s.Log)
		}
	}
	b.WriteString("\nA server that stops is restarted on its next call; `indusr mcp trust` approves a workspace's own config.")
	return b.String()
}
