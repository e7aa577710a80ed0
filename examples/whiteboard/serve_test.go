package whiteboard_test

import (
	"context"
	"log/slog"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/indusagi/induscode/examples/whiteboard"
	"github.com/indusagi/induscode/intent"
	"github.com/indusagi/induscode/serve"
	"github.com/indusagi/induscode/session"
	"github.com/indusagi/induscode/tool"
)

// connect opens one more MCP client on srv.
func connect(t *testing.T, srv *serve.Server) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	serverEnd, clientEnd := mcp.NewInMemoryTransports()
	ss, err := srv.MCP().Connect(ctx, serverEnd, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, clientEnd, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func addText(t *testing.T, cs *mcp.ClientSession, content string) string {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "add_text", Arguments: map[string]any{"x": 0, "y": 0, "content": content}})
	if err != nil || res.IsError {
		t.Fatalf("add_text: %+v, %v", res, err)
	}
	return res.Content[0].(*mcp.TextContent).Text
}

// Served with ToolsPerEnv, every MCP client draws on a whiteboard of its
// own; with Tools, all clients share one.
func TestServedBoardsPerClient(t *testing.T) {
	set, err := whiteboard.Intents()
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		tools  []tool.Tool
		second string // the second client's first answer
	}{
		{"one board per client", intent.ToolsPerEnv(set, func(*tool.Env) intent.Dispatcher[whiteboard.Intent] { return whiteboard.New() }), `{"id":"e1"}`},
		{"one board for all", intent.Tools(set, whiteboard.New()), `{"id":"e2"}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv, err := serve.New(serve.Options{
				Session: session.Options{Dir: t.TempDir(), NoTools: true, Extra: c.tools},
				Log:     slog.New(slog.DiscardHandler),
			})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { srv.Close() })
			alice, bob := connect(t, srv), connect(t, srv)
			if got := addText(t, alice, "from alice"); got != `{"id":"e1"}` {
				t.Fatalf("alice's first note: %s", got)
			}
			if got := addText(t, bob, "from bob"); got != c.second {
				t.Fatalf("bob's first note: %s, want %s", got, c.second)
			}
		})
	}
}
