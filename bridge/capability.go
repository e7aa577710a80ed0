package bridge

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/indusagi/induscode/tool"
)

// capability is a grafted tool: a tool.Tool whose calls go to the server
// that offers it. It routes through the fleet's table on every call, so a
// tool stays callable across restarts and refreshes of its server and says
// so clearly once the server stops offering it.
type capability struct {
	fleet  *Fleet
	server string
	name   string // the server's own tool name
	spec   tool.Spec
}

var _ tool.Cancellable = (*capability)(nil)

// Cancellable: a call returns as soon as its context ends (the SDK client
// stops waiting and tells the server to cancel), so a deck runs it on the
// caller's goroutine.
func (c *capability) Cancellable() bool { return true }

// Spec hands out copies of the schemas: one fleet's tools serve every
// session of a serve process.
func (c *capability) Spec() tool.Spec { return tool.CloneSpec(c.spec) }

// Origin returns the server and its own name of the tool.
func (c *capability) Origin() (string, string) { return c.server, c.name }

func (c *capability) Run(ctx context.Context, input json.RawMessage, _ *tool.Env) tool.Result {
	args, err := normalizeArgs(input)
	if err != nil {
		return tool.Errorf("invalid input for %s: %v", c.spec.Name, err)
	}
	srv, name, ok := c.fleet.route(c.spec.Name)
	if !ok {
		return tool.Errorf("%s is no longer offered: MCP server %q no longer lists it or was detached. List the tools again and use another.", c.spec.Name, c.server)
	}
	return srv.call(ctx, c.spec.Name, name, args)
}

// label is the tool's display title: its title, its annotations' title,
// then its name, as MCP orders them.
func label(title, annotationTitle, name string) string {
	switch {
	case title != "":
		return title
	case annotationTitle != "":
		return annotationTitle
	}
	return name
}

func describe(desc, server, name string) string {
	if desc != "" {
		return desc
	}
	return fmt.Sprintf("Tool %q of MCP server %q.", name, server)
}
