package bridge

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/indusagi/induscode/bridge/mcpconfig"
)

// promptServer is an MCP server over Streamable HTTP on 127.0.0.1 that
// offers one prompt with two arguments.
func promptServer(t *testing.T) string {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "review", Version: "1"}, nil)
	s.AddPrompt(&mcp.Prompt{Name: "review", Description: "review a file", Arguments: []*mcp.PromptArgument{{Name: "file", Required: true}, {Name: "focus"}}},
		func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			a := req.Params.Arguments
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{
				{Role: "user", Content: &mcp.TextContent{Text: "Review " + a["file"] + " for " + a["focus"] + "."}},
			}}, nil
		})
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestPromptsListAndGet(t *testing.T) {
	f := mount(t, Options{}, mcpconfig.Server{Name: "rev", Transport: mcpconfig.StreamableHTTP, URL: promptServer(t)})
	if st := statusOf(t, f, "rev"); st.State != Ready {
		t.Fatalf("status %+v", st)
	}
	ps, err := f.Prompts(t.Context())
	if err != nil || len(ps) != 1 {
		t.Fatalf("Prompts: %+v, %v", ps, err)
	}
	if p := ps[0]; p.Server != "rev" || p.Name != "review" || strings.Join(p.Arguments, ",") != "file,focus" || p.Description != "review a file" {
		t.Errorf("prompt %+v", p)
	}
	text, err := f.GetPrompt(t.Context(), "rev", "review", map[string]string{"file": "a.go", "focus": "errors"})
	if err != nil || text != "Review a.go for errors." {
		t.Errorf("get: %q, %v", text, err)
	}
	if _, err := f.GetPrompt(t.Context(), "rev", "missing", nil); err == nil {
		t.Error("getting a prompt the server does not have succeeded")
	}
	if _, err := f.GetPrompt(t.Context(), "nobody", "review", nil); err == nil || !strings.Contains(err.Error(), `no MCP server "nobody"`) {
		t.Errorf("an unknown server: %v", err)
	}
}
