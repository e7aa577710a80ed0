package serve

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

// post sends one raw request to the endpoint.
func post(t *testing.T, url, body string, header map[string]string) (int, string) {
	t.Helper()
	resp, b := send(t, http.MethodPost, url, body, header)
	return resp.StatusCode, b
}

// Bad input of every kind gets a clear error, and the server keeps
// serving: a client connected before it all still works after.
func TestBadInputIsRefusedClearly(t *testing.T) {
	t.Parallel()
	url, _ := startHTTP(t, sessionOptions(workspace(t, nil)), HTTPOptions{MaxBody: 64 << 10})
	cs := httpClient(t, url, nil)

	for _, tc := range []struct {
		name   string
		body   string
		header map[string]string
		status int
		says   string
	}{
		{"malformed JSON-RPC", `{"jsonrpc":"2.0","id":1,"method":`, nil, http.StatusBadRequest, "malformed"},
		{"oversized body", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("x", 70<<10) + `"}}`, nil, http.StatusRequestEntityTooLarge, ""},
		{"wrong Host", initBody, map[string]string{"Host": "evil.example:80"}, http.StatusForbidden, "Host"},
		{"foreign Origin", initBody, map[string]string{"Origin": "https://evil.example"}, http.StatusForbidden, "Origin"},
	} {
		status, body := post(t, url, tc.body, tc.header)
		if status != tc.status || !strings.Contains(body, tc.says) {
			t.Errorf("%s: got %d %q, want %d saying %q", tc.name, status, body, tc.status, tc.says)
		}
	}

	// An unknown tool is a JSON-RPC error that names it.
	_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "no_such_tool", Arguments: map[string]any{}})
	if err == nil || !strings.Contains(err.Error(), "no_such_tool") {
		t.Errorf("unknown tool: err = %v", err)
	}
	// Invalid arguments are an isError result that names the field.
	res := call(t, cs, "read", map[string]any{"path": 42})
	if !res.IsError || !strings.Contains(text(res), "path") {
		t.Errorf("invalid arguments: %v %q", res.IsError, text(res))
	}
	res = call(t, cs, "read", map[string]any{"pth": "x"})
	if !res.IsError || !strings.Contains(text(res), "pth") {
		t.Errorf("unknown argument: %v %q", res.IsError, text(res))
	}
	// Still serving.
	mustSucceed(t, "bash", call(t, cs, "bash", map[string]any{"command": "echo still here"}))
}

// With a token, a request without it or with another one gets 401 and
// says how to authenticate; the right one works.
func TestTokenIsRequired(t *testing.T) {
	t.Parallel()
	const token = "s3cret-token"
	url, _ := startHTTP(t, sessionOptions(workspace(t, nil)), HTTPOptions{Token: token})
	for _, h := range []map[string]string{nil, {"Authorization": "Bearer wrong"}, {"Authorization": "Basic " + token}, {"Authorization": "Bearer " + token + "x"}} {
		status, body := post(t, url, initBody, h)
		if status != http.StatusUnauthorized || !strings.Contains(body, "Authorization: Bearer") || strings.Contains(body, token) {
			t.Errorf("header %v: got %d %q", h, status, body)
		}
	}
	cs := connect(t, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer{token}}}, nil)
	mustSucceed(t, "ls", call(t, cs, "ls", map[string]any{}))
}

type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// A listen address beyond loopback is refused without a token.
func TestNonLoopbackNeedsToken(t *testing.T) {
	t.Parallel()
	for addr, ok := range map[string]bool{"127.0.0.1:0": true, "localhost:0": true, "[::1]:0": true, "0.0.0.0:0": false, ":0": false, "192.0.2.1:0": false} {
		err := checkAddr(addr, "")
		if (err == nil) != ok {
			t.Errorf("checkAddr(%q) = %v, want ok=%v", addr, err, ok)
		}
		if err := checkAddr(addr, "t"); err != nil {
			t.Errorf("checkAddr(%q) with a token = %v", addr, err)
		}
	}
	srv, err := New(sessionOptions(workspace(t, nil)))
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.RunHTTP(context.Background(), HTTPOptions{Addr: "0.0.0.0:0"}, nil); err == nil || !strings.Contains(err.Error(), "token") {
		t.Errorf("RunHTTP on 0.0.0.0 without a token: %v", err)
	}
}

// By default a call is answered with one JSON body; with EventStreams,
// with an event stream. The SDK client works with both.
func TestResponseBodies(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name        string
		opts        HTTPOptions
		contentType string
	}{
		{"default", HTTPOptions{}, "application/json"},
		{"event streams", HTTPOptions{EventStreams: true}, "text/event-stream"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			url, _ := startHTTP(t, sessionOptions(workspace(t, map[string]string{"a.txt": "some text\n"})), tt.opts)
			cs := httpClient(t, url, nil)
			if out := mustSucceed(t, "read", call(t, cs, "read", map[string]any{"path": "a.txt"})); !strings.Contains(out, "some text") {
				t.Errorf("read: %q", out)
			}
			raw := startRawHTTP(t, url)
			resp, body, err := raw.post(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"ls","arguments":{}}}`)
			if err != nil || resp.Header.Get("Content-Type") != tt.contentType || !strings.Contains(string(body), "a.txt") {
				t.Errorf("raw call: %v, Content-Type %q, want %q; body %s", err, resp.Header.Get("Content-Type"), tt.contentType, body)
			}
		})
	}
}
