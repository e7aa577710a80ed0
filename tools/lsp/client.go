package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/indusagi/induscode/internal/childproc"
	"github.com/indusagi/induscode/workspace"
)

// Grace periods of a server's shutdown: the polite request, then closing
// its stdin, then signals. A server that ignores all of them is killed.
const (
	shutdownGrace = time.Second
	stdinGrace    = 500 * time.Millisecond
	termGrace     = 500 * time.Millisecond
)

// client is one running language server for one workspace root.
type client struct {
	lang string
	root string

	cmd    *exec.Cmd
	group  *childproc.Group
	ward   *childproc.Ward
	stdin  io.WriteCloser
	exited chan struct{} // closed once the server process has been reaped
	conn   *jsonrpc2.Conn

	ready    chan struct{} // closed when initialize has answered (or failed)
	startErr error         // why it could not start, valid after ready

	enc string // the position encoding the server chose

	mu      sync.Mutex
	docs    map[string]*document // by URI
	diags   map[string]published // by URI
	changed chan struct{}        // closed and replaced on every publish
	stderr  tail
	drained chan struct{} // closed when stderr has been read to its end
}

// document is a file the server has open, as the server last saw it.
type document struct {
	version int
	text    string
}

// published is the latest diagnostics of one document.
type published struct {
	version *int
	seq     int // counts publishes for the document, for servers that send no version
	diags   []diagnostic
}

// startClient starts srv for root and begins its initialize handshake; the
// client is usable once ready is closed without startErr.
func startClient(lang string, srv Server, root string) (*client, error) {
	path, err := exec.LookPath(srv.Command)
	if err != nil {
		hint := ""
		if srv.Install != "" {
			hint = "; install it with: " + srv.Install
		}
		return nil, fmt.Errorf("the %s language server %s is not on PATH%s (or set lsp.%s.command in .indusvx/settings.json)", lang, srv.Command, hint, lang)
	}
	cmd := exec.Command(path, srv.Args...)
	cmd.Dir = root
	childproc.OwnGroup(cmd)
	ward := childproc.NewWard(workspace.At(root).Procs())
	ward.Prepare(cmd)
	pipes, err := childproc.OpenPipes(cmd)
	if err != nil {
		return nil, err
	}
	release, err := ward.Start(cmd, true)
	if err != nil {
		pipes.Close()
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("starting the %s language server %s: %w", lang, srv.Command, err)
		}
		return nil, fmt.Errorf("starting the %s language server: %w", lang, err)
	}
	pipes.CloseChildEnds()
	c := &client{
		lang: lang, root: root, cmd: cmd, group: childproc.NewGroup(cmd), ward: ward, stdin: pipes.Stdin,
		exited: make(chan struct{}), ready: make(chan struct{}), drained: make(chan struct{}),
		docs: map[string]*document{}, diags: map[string]published{}, changed: make(chan struct{}),
	}
	go func() {
		_, _ = io.Copy(&c.stderr, pipes.Stderr)
		pipes.Stderr.Close()
		close(c.drained)
	}()
	go func() {
		_ = c.group.Reap()
		release()
		ward.Close()
		close(c.exited)
	}()
	stream := jsonrpc2.NewBufferedStream(stdio{pipes.Stdout, pipes.Stdin}, jsonrpc2.VSCodeObjectCodec{})
	c.conn = jsonrpc2.NewConn(context.Background(), stream, jsonrpc2.HandlerWithError(c.handle).SuppressErrClosed())
	go c.initialize(srv)
	return c, nil
}

// stdio joins the server's stdout and stdin into one stream.
type stdio struct {
	io.ReadCloser
	w io.WriteCloser
}

func (s stdio) Write(p []byte) (int, error) { return s.w.Write(p) }

func (s stdio) Close() error {
	s.w.Close()
	return s.ReadCloser.Close()
}

// startTimeout bounds the initialize handshake: a server that has not
// answered by then is treated as hung and stopped.
const startTimeout = 60 * time.Second

func (c *client) initialize(srv Server) {
	defer close(c.ready)
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	params := map[string]any{
		"processId": os.Getpid(),
		"rootUri":   fileURI(c.root),
		"workspaceFolders": []map[string]string{
			{"uri": fileURI(c.root), "name": c.root},
		},
		"capabilities": map[string]any{
			"general": map[string]any{"positionEncodings": []string{encodingUTF8, encodingUTF16}},
			"textDocument": map[string]any{
				"synchronization":    map[string]any{"didSave": true},
				"publishDiagnostics": map[string]any{"versionSupport": true},
				"documentSymbol":     map[string]any{"hierarchicalDocumentSymbolSupport": true},
				"hover":              map[string]any{"contentFormat": []string{"plaintext", "markdown"}},
				"definition":         map[string]any{"linkSupport": true},
			},
			"workspace": map[string]any{"workspaceFolders": true, "configuration": true},
		},
	}
	if len(srv.InitializationOptions) > 0 {
		params["initializationOptions"] = srv.InitializationOptions
	}
	var res struct {
		Capabilities struct {
			PositionEncoding string `json:"positionEncoding"`
		} `json:"capabilities"`
	}
	if err := c.conn.Call(ctx, "initialize", params, &res); err != nil {
		c.startErr = c.failure("did not answer initialize", err)
		c.halt()
		return
	}
	c.enc = encodingUTF16
	if res.Capabilities.PositionEncoding == encodingUTF8 {
		c.enc = encodingUTF8
	}
	if err := c.conn.Notify(ctx, "initialized", map[string]any{}); err != nil {
		c.startErr = c.failure("ended after initialize", err)
		c.halt()
	}
}

// failure describes why the server stopped answering, with the end of its
// stderr.
func (c *client) failure(what string, err error) error {
	msg := fmt.Sprintf("the %s language server %s: %v", c.lang, what, err)
	// What a server says on its way out is the best explanation: its
	// stderr ends when it exits, which may not have been reaped yet.
	select {
	case <-c.drained:
	case <-time.After(time.Second):
	}
	select {
	case <-c.exited:
		msg += " (it exited)"
	default:
	}
	if t := c.stderr.String(); t != "" {
		msg += "; its stderr ends: " + t
	}
	return errors.New(msg)
}

// alive reports whether the server process still runs and its connection
// is open.
func (c *client) alive() bool {
	select {
	case <-c.exited:
		return false
	case <-c.conn.DisconnectNotify():
		return false
	default:
		return true
	}
}

// await waits until the handshake is over.
func (c *client) await(ctx context.Context) error {
	select {
	case <-c.ready:
		return c.startErr
	case <-ctx.Done():
		return fmt.Errorf("the %s language server is still starting", c.lang)
	}
}

// handle answers what the server asks of the client and keeps what it
// publishes. It runs on the connection's read loop, so it never blocks.
func (c *client) handle(_ context.Context, _ *jsonrpc2.Conn, req *jsonrpc2.Request) (any, error) {
	switch req.Method {
	case "textDocument/publishDiagnostics":
		var p publishDiagnosticsParams
		if req.Params != nil && json.Unmarshal(*req.Params, &p) == nil {
			c.mu.Lock()
			prev := c.diags[p.URI]
			c.diags[p.URI] = published{version: p.Version, seq: prev.seq + 1, diags: p.Diagnostics}
			close(c.changed)
			c.changed = make(chan struct{})
			c.mu.Unlock()
		}
		return nil, nil
	case "workspace/configuration":
		var p struct {
			Items []json.RawMessage `json:"items"`
		}
		if req.Params != nil {
			_ = json.Unmarshal(*req.Params, &p)
		}
		return make([]any, len(p.Items)), nil
	case "workspace/workspaceFolders":
		return []map[string]string{{"uri": fileURI(c.root), "name": c.root}}, nil
	}
	// Everything else (progress tokens, capability registration, messages)
	// needs no more than an empty answer; notifications need none.
	return nil, nil
}

// sync makes the server's copy of path equal text, opening the document on
// first sight, and returns the version the server now has with the
// publish count seen before the change.
func (c *client) sync(ctx context.Context, path, text string) (version, seq int, err error) {
	uri := fileURI(path)
	c.mu.Lock()
	d, open := c.docs[uri]
	seq = c.diags[uri].seq
	if open && d.text == text {
		v := d.version
		c.mu.Unlock()
		return v, -1, nil // nothing to send: the current diagnostics hold
	}
	if !open {
		d = &document{}
		c.docs[uri] = d
	}
	d.version++
	d.text = text
	version = d.version
	c.mu.Unlock()
	if !open {
		err = c.conn.Notify(ctx, "textDocument/didOpen", map[string]any{"textDocument": map[string]any{
			"uri": uri, "languageId": languageID(path, c.lang), "version": version, "text": text}})
	} else {
		err = c.conn.Notify(ctx, "textDocument/didChange", map[string]any{
			"textDocument":   map[string]any{"uri": uri, "version": version},
			"contentChanges": []map[string]string{{"text": text}}})
		if err == nil {
			err = c.conn.Notify(ctx, "textDocument/didSave", map[string]any{"textDocument": map[string]string{"uri": uri}})
		}
	}
	return version, seq, err
}

// diagnosticsOf waits until the server has published diagnostics for
// version of path (or, for a server that sends no versions, published
// anything after publish number seq) and returns them.
func (c *client) diagnosticsOf(ctx context.Context, path string, version, seq int) ([]diagnostic, error) {
	uri := fileURI(path)
	sent := time.Now()
	for {
		c.mu.Lock()
		p, ok := c.diags[uri]
		changed := c.changed
		c.mu.Unlock()
		if ok && (seq < 0 || (p.version != nil && *p.version >= version)) {
			return p.diags, nil
		}
		if ok && p.version == nil && p.seq > seq {
			// A server slow to publish its first phase (a busy machine,
			// a big project) is as slow with the next: the quiet it must
			// keep grows with the wait so far.
			return c.settle(ctx, uri, p, max(versionlessSettle, 2*time.Since(sent))), nil
		}
		select {
		case <-changed:
		case <-c.exited:
			return nil, c.failure("exited", errors.New("no diagnostics"))
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// versionlessSettle is how long, at least, a server that sends no
// document versions must stay quiet before its latest publish is taken as
// the answer: such servers publish in phases (syntax first, types later),
// and the first publish after a change is often an empty one.
const versionlessSettle = 750 * time.Millisecond

// settle waits for a versionless server to stop publishing for uri for
// quiet and returns its last word (or what it had when ctx ends).
func (c *client) settle(ctx context.Context, uri string, p published, quiet time.Duration) []diagnostic {
	for {
		c.mu.Lock()
		latest, changed := c.diags[uri], c.changed
		c.mu.Unlock()
		if latest.seq != p.seq {
			p = latest
		}
		select {
		case <-changed:
		case <-time.After(quiet):
			c.mu.Lock()
			latest = c.diags[uri]
			c.mu.Unlock()
			if latest.seq == p.seq {
				return p.diags
			}
		case <-c.exited:
			return p.diags
		case <-ctx.Done():
			return p.diags
		}
	}
}

// call sends one request and decodes its answer.
func (c *client) call(ctx context.Context, method string, params, result any) error {
	if err := c.await(ctx); err != nil {
		return err
	}
	if err := c.conn.Call(ctx, method, params, result); err != nil {
		if !c.alive() {
			return c.failure("exited", err)
		}
		if ctx.Err() != nil {
			// A large workspace can keep a server loading past the
			// wait; it goes on loading, so the next question is faster.
			return fmt.Errorf("the %s language server did not answer %s in time (%v); it may still be loading the workspace: ask again in a moment", c.lang, method, context.Cause(ctx))
		}
		return fmt.Errorf("the %s language server answered %s with an error: %w", c.lang, method, err)
	}
	return nil
}

// stop ends the server and returns once the process is gone and its
// handshake over.
func (c *client) stop() {
	c.halt()
	<-c.ready
}

// halt ends the server: shutdown and exit when it answers, then the
// process group in order. It returns once the process is gone.
func (c *client) halt() {
	if c.alive() {
		select {
		case <-c.ready:
			if c.startErr == nil {
				ctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
				if c.conn.Call(ctx, "shutdown", nil, nil) == nil {
					_ = c.conn.Notify(ctx, "exit", nil)
				}
				cancel()
			}
		default:
		}
	}
	c.group.Stop(c.stdin, c.exited, stdinGrace, termGrace)
	<-c.exited
	c.conn.Close()
}

// tail keeps the last bytes a server wrote to stderr, for messages.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

const tailBytes = 2 << 10

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > tailBytes {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-tailBytes:]...)
	}
	t.mu.Unlock()
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(t.buf))
}
