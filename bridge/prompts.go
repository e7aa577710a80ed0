package bridge

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxPrompts bounds the prompts listed over all servers: they become
// slash commands a person reads in /help, so a few hundred is plenty.
const maxPrompts = 500

// Prompt is one prompt a mounted server offers (prompts/list): the user
// runs it as /server:name with its arguments.
type Prompt struct {
	Server      string
	Name        string
	Description string
	// Arguments are the argument names in the server's order.
	Arguments []string
}

// Prompts lists the prompts of every ready server that offers any, in
// declaration order. A server whose listing fails is left out and named
// in the error; the others are listed.
func (f *Fleet) Prompts(ctx context.Context) ([]Prompt, error) {
	f.mu.Lock()
	servers := append([]*server(nil), f.servers...)
	f.mu.Unlock()
	var out []Prompt
	var errs []error
	for _, s := range servers {
		s.mu.Lock()
		l, ready := s.link, s.state == Ready
		s.mu.Unlock()
		if !ready || l == nil {
			continue
		}
		if caps := l.session.InitializeResult(); caps == nil || caps.Capabilities == nil || caps.Capabilities.Prompts == nil {
			continue
		}
		params := &mcp.ListPromptsParams{}
		for range maxResourcePages {
			res, err := l.session.ListPrompts(ctx, params)
			if err != nil {
				errs = append(errs, fmt.Errorf("MCP server %q: listing prompts: %w", s.cfg.Name, err))
				break
			}
			for _, p := range res.Prompts {
				var args []string
				for _, a := range p.Arguments {
					args = append(args, a.Name)
				}
				out = append(out, Prompt{Server: s.cfg.Name, Name: p.Name, Description: p.Description, Arguments: args})
			}
			if res.NextCursor == "" || len(out) >= maxPrompts {
				break
			}
			params.Cursor = res.NextCursor
		}
		if len(out) >= maxPrompts {
			return out[:maxPrompts], errors.Join(errs...)
		}
	}
	return out, errors.Join(errs...)
}

// GetPrompt gets the prompt name of the named server with args and
// returns its messages' text, each text part as sent and a line naming
// any other part (an image, a resource), which a prompt cannot carry.
func (f *Fleet) GetPrompt(ctx context.Context, serverName, name string, args map[string]string) (string, error) {
	f.mu.Lock()
	s := f.find(serverName)
	f.mu.Unlock()
	if s == nil {
		return "", fmt.Errorf("no MCP server %q is mounted", serverName)
	}
	l, err := s.ready(ctx)
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(ctx, s.callTimeout())
	defer cancel()
	res, err := l.session.GetPrompt(ctx, &mcp.GetPromptParams{Name: name, Arguments: args})
	if err != nil {
		return "", fmt.Errorf("MCP server %q: getting prompt %s: %w", serverName, name, err)
	}
	var parts []string
	for _, m := range res.Messages {
		if m == nil {
			continue
		}
		switch c := m.Content.(type) {
		case *mcp.TextContent:
			parts = append(parts, c.Text)
		case *mcp.EmbeddedResource:
			if c.Resource != nil && c.Resource.Text != "" {
				parts = append(parts, c.Resource.Text)
			} else {
				parts = append(parts, "[a resource the prompt embeds, not text]")
			}
		default:
			parts = append(parts, fmt.Sprintf("[a %T part of the prompt, not text]", c))
		}
	}
	return strings.Join(parts, "\n\n"), nil
}
