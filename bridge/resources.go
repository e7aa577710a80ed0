package bridge

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Resource listing bounds: a server may page forever or hold millions of
// rows; a person picks from a menu, so a few thousand is plenty, and the
// text a prompt takes from one resource is bounded by the caller.
const (
	maxResourcePages = 20
	maxResources     = 5000
)

// Resource is one resource a mounted server offers (resources/list).
type Resource struct {
	Server   string
	URI      string
	Name     string
	Title    string
	MIMEType string
}

// Resources lists the resources of every ready server that offers any, in
// declaration order. A server whose listing fails is left out and named
// in the error, which joins every such failure; the others are listed.
func (f *Fleet) Resources(ctx context.Context) ([]Resource, error) {
	f.mu.Lock()
	servers := append([]*server(nil), f.servers...)
	f.mu.Unlock()
	var out []Resource
	var errs []error
	for _, s := range servers {
		s.mu.Lock()
		l, ready := s.link, s.state == Ready
		s.mu.Unlock()
		if !ready || l == nil {
			continue
		}
		if caps := l.session.InitializeResult(); caps == nil || caps.Capabilities == nil || caps.Capabilities.Resources == nil {
			continue
		}
		res, err := listResources(ctx, s.cfg.Name, l.session)
		if err != nil {
			errs = append(errs, fmt.Errorf("MCP server %q: listing resources: %w", s.cfg.Name, err))
		}
		out = append(out, res...)
		if len(out) >= maxResources {
			return out[:maxResources], errors.Join(errs...)
		}
	}
	return out, errors.Join(errs...)
}

func listResources(ctx context.Context, name string, cs *mcp.ClientSession) ([]Resource, error) {
	var out []Resource
	params := &mcp.ListResourcesParams{}
	for range maxResourcePages {
		res, err := cs.ListResources(ctx, params)
		if err != nil {
			return out, err
		}
		for _, r := range res.Resources {
			out = append(out, Resource{Server: name, URI: r.URI, Name: r.Name, Title: r.Title, MIMEType: r.MIMEType})
		}
		if res.NextCursor == "" || len(out) >= maxResources {
			break
		}
		params.Cursor = res.NextCursor
	}
	return out, nil
}

// ReadResource reads the resource uri of the named server (restarting the
// server if its session ended) and returns its text: each text part as
// sent, and a line naming each binary part, which a prompt cannot carry.
func (f *Fleet) ReadResource(ctx context.Context, serverName, uri string) (string, error) {
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
	res, err := l.session.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		return "", fmt.Errorf("MCP server %q: reading %s: %w", serverName, uri, err)
	}
	var parts []string
	for _, c := range res.Contents {
		if c == nil {
			continue
		}
		if c.Blob != nil {
			parts = append(parts, fmt.Sprintf("[%s: %d bytes of %s, not text]", c.URI, len(c.Blob), orUnknown(c.MIMEType)))
			continue
		}
		parts = append(parts, c.Text)
	}
	return strings.Join(parts, "\n"), nil
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown type"
	}
	return s
}
