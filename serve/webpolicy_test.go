package serve

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A server others can reach must not let them fetch this machine's local
// services through webfetch; a loopback server may (a local dev server).
func TestWebfetchPolicyFollowsTheListenAddress(t *testing.T) {
	t.Parallel()
	local := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "internal admin page") }))
	defer local.Close()
	const token = "t0ken"
	for _, tc := range []struct {
		addr    string
		refused bool
	}{
		{"127.0.0.1:0", false},
		{"0.0.0.0:0", true},
	} {
		t.Run(tc.addr, func(t *testing.T) {
			url, _ := startHTTP(t, sessionOptions(workspace(t, nil)), HTTPOptions{Addr: tc.addr, Token: token})
			cs := connect(t, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer{token}}}, nil)
			res := call(t, cs, "webfetch", map[string]any{"url": local.URL})
			out := text(res)
			if tc.refused {
				if !res.IsError || !strings.Contains(out, "refuses private, loopback and link-local") {
					t.Errorf("a server on %s fetched a loopback address:\n%s", tc.addr, out)
				}
			} else if res.IsError || !strings.Contains(out, "internal admin page") {
				t.Errorf("a loopback server could not fetch a local page:\n%s", out)
			}
		})
	}
}
