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

// resourceServer is an MCP server over Streamable HTTP on 127.0.0.1 that
// offers a text resource and a binary one.
func resourceServer(t *testing.T) string {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "docs", Version: "1"}, nil)
	s.AddResource(&mcp.Resource{URI: "file:///guide.md", Name: "guide", Title: "Style guide", MIMEType: "text/markdown"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: "Use tabs."}}}, nil
		})
	s.AddResource(&mcp.Resource{URI: "file:///logo.png", Name: "logo", MIMEType: "image/png"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "image/png", Blob: []byte{0x89, 'P', 'N', 'G'}}}}, nil
		})
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestResourcesListAndRead(t *testing.T) {
	f := mount(t, Options{}, mcpconfig.Server{Name: "docs", Transport: mcpconfig.StreamableHTTP, URL: resourceServer(t)})
	if st := statusOf(t, f, "docs"); st.State != Ready {
		t.Fatalf("status %+v", st)
	}
	res, err := f.Resources(t.Context())
	if err != nil || len(res) != 2 {
		t.Fatalf("Resources: %+v, %v", res, err)
	}
	if r := res[0]; r.Server != "docs" || r.URI != "file:///guide.md" || r.Title != "Style guide" {
		t.Errorf("first resource %+v", r)
	}
	text, err := f.ReadResource(t.Context(), "docs", "file:///guide.md")
	if err != nil || text != "Use tabs." {
		t.Errorf("read: %q, %v", text, err)
	}
	text, err = f.ReadResource(t.Context(), "docs", "file:///logo.png")
	if err != nil || !strings.Contains(text, "4 bytes of image/png, not text") {
		t.Errorf("a binary resource reads as %q, %v", text, err)
	}
	if _, err := f.ReadResource(t.Context(), "docs", "file:///missing"); err == nil {
		t.Error("reading a resource the server does not have succeeded")
	}
	if _, err := f.ReadResource(t.Context(), "nobody", "file:///guide.md"); err == nil || !strings.Contains(err.Error(), `no MCP server "nobody"`) {
		t.Errorf("an unknown server: %v", err)
	}
}
