package bridge

import (
	"context"
	"net/http"
	"sync/atomic"

	"github.com/indusagi/induscode/bridge/mcpconfig"
	"github.com/indusagi/induscode/internal/childlog"
	"github.com/indusagi/induscode/internal/stdioconn"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// stdioTransport starts a stdio server in its own process group and speaks
// to it over a stdioconn connection, with stdout filtered. The SDK's
// CommandTransport is not used: it signals only the direct child, reads
// stdout unfiltered, ties stderr to this process, and decodes every
// message several times.
type stdioTransport struct {
	cfg  mcpconfig.Server
	dir  string
	log  *childlog.Log
	proc *process // set by Connect
}

func (t *stdioTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	p, err := startProcess(t.cfg, t.dir, t.log)
	if err != nil {
		return nil, err
	}
	t.proc = p
	conn := stdioconn.New(p.stdout, p.stdin, stdioconn.Options{MaxLine: maxFrame, CloseUnblocks: true})
	return &procConn{Connection: conn, proc: p}, nil
}

// procConn is the connection to a stdio server; closing it tears the
// process down.
type procConn struct {
	mcp.Connection
	proc *process
}

func (c *procConn) Close() error {
	err := c.Connection.Close()
	// Teardown waits for the process; the SDK may call Close from its
	// reader goroutine, which must not block on it.
	go c.proc.stop()
	return err
}

// detachedTransport keeps a connection alive past the context given to
// Connect. The SDK's SSE transport ties its event stream to that context, so
// a startup deadline would cut the session the moment it passed; here the
// deadline bounds connecting only, and closing the connection ends the
// stream.
type detachedTransport struct {
	inner mcp.Transport
}

func (t detachedTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	life, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, cancel)
	conn, err := t.inner.Connect(life)
	if !stop() {
		// ctx ended while connecting: the stream may already be cut.
		if conn != nil {
			conn.Close()
		}
		cancel()
		if err == nil {
			err = context.Cause(ctx)
		}
		return nil, err
	}
	if err != nil {
		cancel()
		return nil, err
	}
	return &cancelConn{Connection: conn, cancel: cancel}, nil
}

type cancelConn struct {
	mcp.Connection
	cancel context.CancelFunc
}

func (c *cancelConn) Close() error {
	err := c.Connection.Close()
	c.cancel()
	return err
}

// headerTransport adds a server's configured headers to every request and
// notes the status of the first POST's answer (transport detection needs
// it: the SDK's error carries only the status text).
type headerTransport struct {
	base      http.RoundTripper
	headers   []mcpconfig.Pair
	firstPost atomic.Int32
}

func (t *headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if len(t.headers) > 0 {
		req = req.Clone(req.Context())
		for _, h := range t.headers {
			req.Header.Set(h.Name, h.Value)
		}
	}
	resp, err := t.base.RoundTrip(req)
	if err == nil && req.Method == http.MethodPost {
		t.firstPost.CompareAndSwap(0, int32(resp.StatusCode))
	}
	return resp, err
}

// newHTTPClient returns a client of its own for one server, so closing the
// server closes its idle connections (and their goroutines).
func newHTTPClient(headers []mcpconfig.Pair) (*http.Client, *headerTransport, *http.Transport) {
	base := http.DefaultTransport.(*http.Transport).Clone()
	ht := &headerTransport{base: base, headers: headers}
	return &http.Client{Transport: ht}, ht, base
}

// sseFallbackStatus reports whether a Streamable HTTP POST answered with
// this status means the server may speak only the older SSE transport: the
// MCP specification's backwards compatibility rule names these.
func sseFallbackStatus(code int) bool {
	return code == http.StatusBadRequest || code == http.StatusNotFound || code == http.StatusMethodNotAllowed
}

// httpTransport builds the SDK transport of an SSE or Streamable HTTP
// server.
func httpTransport(cfg mcpconfig.Server, tr mcpconfig.Transport, client *http.Client) mcp.Transport {
	if tr == mcpconfig.SSE {
		return detachedTransport{&mcp.SSEClientTransport{Endpoint: cfg.URL, HTTPClient: client}}
	}
	// The SDK resumes a dropped event stream itself (five tries); a
	// session it gives up on ends, and the bridge reconnects on the next
	// call.
	return &mcp.StreamableClientTransport{Endpoint: cfg.URL, HTTPClient: client}
}
