// Package stdioconn is an MCP connection over newline-delimited JSON-RPC,
// one message per line: the stdio transport under `indusr serve` (the
// server's side) and under the bridge's stdio servers (the client's side).
//
// It stands in for the MCP SDK's mcp.IOTransport for two reasons a user
// notices.
//
//   - Speed. The SDK's transport decodes every incoming message two or
//     three times (as a batch first, then as a message), each time through
//     a JSON decoder that allocates a fresh 32 KiB buffer. On a small call
//     that garbage is most of what a round trip allocates, and a process
//     that is still growing its heap pays for every fresh page. Here each
//     line is decoded once, with encoding/json, into the SDK's own message
//     types; the SDK does everything above the connection.
//   - Bad input. On the server's side ([Options.AnswerBadLines]) a line
//     that is not JSON, a batch (MCP dropped them in 2025-06-18) or a line
//     over the limit is answered with a JSON-RPC error that names the
//     problem, and the session goes on; the SDK's transport ends the
//     session instead.
//
// Member names are matched exactly, as the SDK matches them: {"Method":…}
// is not a method, so this connection and the SDK never disagree about
// what a message says.
package stdioconn

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/indusagi/induscode/internal/callids"
	"github.com/indusagi/induscode/internal/jsonline"
)

// DefaultMaxLine is the longest message a connection takes unless
// [Options.MaxLine] says otherwise: the SDK's own default.
const DefaultMaxLine = 16 << 20

// Options configure a connection.
type Options struct {
	// MaxLine bounds one message in bytes; 0 means DefaultMaxLine.
	MaxLine int
	// AnswerBadLines is the server's rule: a line that is not a JSON-RPC
	// message, a batch, or a line over MaxLine gets an error response with
	// a null id, and the connection goes on. Without it such a line ends
	// the connection with an error that says what was wrong, as the SDK's
	// transport does: a client whose server sends garbage fails its calls
	// at once instead of waiting for their timeouts.
	AnswerBadLines bool
	// CloseUnblocks says that closing the input ends a read blocked on it,
	// as it does for a pipe made by os.Pipe or os/exec. Messages are then
	// read on the goroutine that calls Read, one goroutine handoff less
	// per message. Without it a goroutine of the connection reads, so that
	// Close ends the connection even while a read blocks: os.Stdin, for
	// one, is usually not woken by Close.
	CloseUnblocks bool
	// ServerCalls is the server's bookkeeping of the calls it takes (see
	// internal/callids): each answer, and each notification that names a
	// call (a listen stream's subscriptionId, a progress token), carries
	// the client's id exactly as the client wrote it; a call the client
	// cancelled gets no answer; and at the end of the input the client's
	// subscriptions/listen streams are ended (the SDK answers them) and
	// the end is held back until every call taken has been answered, so
	// that a client that writes its requests and closes its end (a pipe
	// from a file, printf) still gets every reply, and the server then
	// ends.
	ServerCalls bool
}

// Transport connects once over In and Out.
type Transport struct {
	In  io.ReadCloser
	Out io.WriteCloser
	Options
}

// Connect implements mcp.Transport.
func (t *Transport) Connect(context.Context) (mcp.Connection, error) {
	return New(t.In, t.Out, t.Options), nil
}

// New returns a connection that reads messages from in and writes them to
// out. Closing it closes both.
func New(in io.ReadCloser, out io.WriteCloser, o Options) mcp.Connection {
	if o.MaxLine <= 0 {
		o.MaxLine = DefaultMaxLine
	}
	c := &conn{
		in:        in,
		out:       out,
		opts:      o,
		lines:     jsonline.NewReader(in, o.MaxLine),
		closed:    make(chan struct{}),
		endSignal: make(chan struct{}, 1),
	}
	if o.ServerCalls {
		c.book = new(callids.Book)
	}
	if !o.CloseUnblocks {
		c.incoming = make(chan msgOrErr)
		go c.readLoop()
	}
	return c
}

type msgOrErr struct {
	msg jsonrpc.Message
	err error
}

type conn struct {
	in       io.ReadCloser
	out      io.WriteCloser
	opts     Options
	writeMu  sync.Mutex
	incoming chan msgOrErr // from readLoop; nil when Read reads itself
	book     *callids.Book // with Options.ServerCalls

	// Reading state, owned by readLoop or by the one goroutine that
	// calls Read.
	lines    *jsonline.Reader
	ended    error // a bad line that ended the input (client side)
	inputErr error // the end of the input (server side), once reached

	// The cancellations that end the client's listen streams at the end
	// of the input, to deliver (queued by the reader and by Write).
	endMu     sync.Mutex
	endings   []*jsonrpc.Request
	endSignal chan struct{} // a token when endings were queued

	closeOnce sync.Once
	closed    chan struct{}
	closeErr  error
}

// readLoop reads on a goroutine of its own so that Read returns as soon as
// the connection is closed, even while a read of stdin blocks (a terminal
// or pipe that is not pollable is not woken by Close).
func (c *conn) readLoop() {
	for {
		msg, err := c.next()
		if err != nil {
			c.drain()
		}
		if !c.deliver(msgOrErr{msg: msg, err: err}) || err != nil {
			return
		}
	}
}

// next reads lines until one holds a message and returns it, or returns
// the error that ends the input: its end, a failed read, or on the
// client's side a bad line. A message on the last line, without a
// newline, comes first and the end of the input with the next call.
func (c *conn) next() (jsonrpc.Message, error) {
	for {
		if c.ended != nil {
			return nil, c.ended
		}
		if c.inputErr != nil {
			return c.endStreams()
		}
		text, err := c.lines.Next()
		var tooLong *jsonline.TooLongError
		switch {
		case errors.As(err, &tooLong):
			if err := c.reject(nil, jsonrpc.CodeInvalidRequest, c.tooLong()); err != nil {
				return nil, err
			}
			continue
		case err != nil && c.book != nil:
			// The end of the input ends the client's listen streams: the
			// SDK answers each, and the input's end is returned once
			// every call taken is answered (see drain).
			c.inputErr = err
			c.queueEndings(c.book.EndInput()...)
			continue
		case err != nil:
			return nil, err
		}
		msg, rawID, code, why := decode(text)
		if why == "" {
			if c.book == nil || c.enter(msg, rawID) {
				return msg, nil
			}
			continue
		}
		if err := c.reject(text, code, why); err != nil {
			return nil, err
		}
	}
}

// enter books a server's incoming message: a call gets the book's id, a
// call whose id is in flight is answered here, and a cancellation of no
// open call is dropped. It reports whether to deliver msg.
func (c *conn) enter(msg jsonrpc.Message, rawID json.RawMessage) bool {
	req, ok := msg.(*jsonrpc.Request)
	if !ok {
		return true
	}
	if !req.IsCall() {
		return c.book.Cancel(req)
	}
	if err := c.book.Take(req, rawID); err != nil {
		b, _ := callids.Encode(&jsonrpc.Response{Error: &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: err.Error()}}, rawID)
		c.writeLine(b)
		return false
	}
	return true
}

// endStreams is what the server reads after the end of its input: the
// cancellations that end the client's listen streams, as they come (a
// stream is ended once acknowledged), then the end itself once every
// call taken has been answered, or the connection is closed.
func (c *conn) endStreams() (jsonrpc.Message, error) {
	for {
		if m := c.nextEnding(); m != nil {
			return m, nil
		}
		select {
		case <-c.endSignal:
		case <-c.book.Idle():
			if m := c.nextEnding(); m != nil {
				return m, nil
			}
			return nil, c.inputErr
		case <-c.closed:
			return nil, c.inputErr
		}
	}
}

func (c *conn) queueEndings(ends ...*jsonrpc.Request) {
	if len(ends) == 0 {
		return
	}
	c.endMu.Lock()
	c.endings = append(c.endings, ends...)
	c.endMu.Unlock()
	select {
	case c.endSignal <- struct{}{}:
	default:
	}
}

func (c *conn) nextEnding() *jsonrpc.Request {
	c.endMu.Lock()
	defer c.endMu.Unlock()
	if len(c.endings) == 0 {
		return nil
	}
	m := c.endings[0]
	c.endings = c.endings[1:]
	return m
}

// drain holds the end of the input back until every call taken has been
// answered, or the connection is closed.
func (c *conn) drain() {
	if c.book == nil {
		return
	}
	select {
	case <-c.book.Idle():
	case <-c.closed:
	}
}

func (c *conn) tooLong() string {
	return fmt.Sprintf("message over the %d MiB limit; it was dropped", c.opts.MaxLine>>20)
}

// deliver hands one message or the final error to Read; it reports false
// once the connection is closed.
func (c *conn) deliver(m msgOrErr) bool {
	select {
	case c.incoming <- m:
		return true
	case <-c.closed:
		return false
	}
}

// reject deals with a line that cannot be taken: answered on the server's
// side (nil: reading goes on), the end of the connection otherwise.
func (c *conn) reject(line []byte, code int64, why string) error {
	if c.opts.AnswerBadLines {
		c.writeLine(errorReply(code, why))
		return nil
	}
	if line != nil {
		why = fmt.Sprintf("%s (the line: %.200q)", why, line)
	}
	c.ended = errors.New("stdio: " + why)
	return c.ended
}

// Decode reads one JSON-RPC message as a connection reads a line: member
// names matched exactly, as the SDK matches them, and no batches. A
// failure is a *jsonrpc.Error with the JSON-RPC code (parse error or
// invalid request) and a message that says what was wrong. The id's JSON
// is returned as it came (nil for none), for a server that echoes it
// exactly.
func Decode(b []byte) (jsonrpc.Message, json.RawMessage, error) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return nil, nil, &jsonrpc.Error{Code: jsonrpc.CodeParseError, Message: "no JSON-RPC message: the body is empty"}
	}
	msg, rawID, code, why := decode(b)
	if msg == nil {
		return nil, nil, &jsonrpc.Error{Code: code, Message: why}
	}
	return msg, rawID, nil
}

// decode also returns the id's JSON as it came, for a server that echoes
// it exactly (the SDK's ID keeps a number as an int64).
func decode(line []byte) (jsonrpc.Message, json.RawMessage, int64, string) {
	if line[0] == '[' {
		return nil, nil, jsonrpc.CodeInvalidRequest, "JSON-RPC batches are not supported (MCP removed them in 2025-06-18): send one message per line"
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(line, &members); err != nil {
		return nil, nil, jsonrpc.CodeParseError, "not a JSON-RPC message: " + err.Error()
	}
	var version string
	if err := json.Unmarshal(members["jsonrpc"], &version); err != nil || version != "2.0" {
		return nil, nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf(`"jsonrpc" must be "2.0", not %s`, orAbsent(members["jsonrpc"]))
	}
	rawID := nullIsAbsent(members["id"])
	id, err := decodeID(rawID)
	if err != nil {
		return nil, nil, jsonrpc.CodeInvalidRequest, err.Error()
	}
	if raw, ok := members["method"]; ok {
		var method string
		if err := json.Unmarshal(raw, &method); err != nil {
			return nil, nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf(`"method" must be a string, not %s`, raw)
		}
		return &jsonrpc.Request{ID: id, Method: method, Params: nullIsAbsent(members["params"])}, rawID, 0, ""
	}
	// A response to a request of this side.
	if !id.IsValid() {
		return nil, nil, jsonrpc.CodeInvalidRequest, "a response needs the id of its request"
	}
	resp := &jsonrpc.Response{ID: id, Result: nullIsAbsent(members["result"])}
	if raw := nullIsAbsent(members["error"]); raw != nil {
		var e jsonrpc.Error
		if err := json.Unmarshal(raw, &e); err != nil {
			return nil, nil, jsonrpc.CodeInvalidRequest, `"error" must be an object with a code and a message: ` + err.Error()
		}
		resp.Error = &e
	}
	return resp, rawID, 0, ""
}

// nullIsAbsent maps a JSON null member to an absent one, as the SDK's
// decoding of json.RawMessage fields does.
func nullIsAbsent(raw json.RawMessage) json.RawMessage {
	if string(raw) == "null" {
		return nil
	}
	return raw
}

func orAbsent(raw json.RawMessage) string {
	if raw == nil {
		return "absent"
	}
	return string(raw)
}

// decodeID reads an id: absent or null (a notification), a number or a
// string. A number that is not an int64 is read as the SDK reads it (a
// server with a callids.Book keeps its exact text for the answer).
func decodeID(raw json.RawMessage) (jsonrpc.ID, error) {
	if len(raw) == 0 {
		return jsonrpc.ID{}, nil
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return jsonrpc.ID{}, err
	}
	id, err := jsonrpc.MakeID(v)
	if err != nil {
		return jsonrpc.ID{}, fmt.Errorf("the id must be a number or a string, not %s", raw)
	}
	return id, nil
}

// errorReply is a JSON-RPC error response with a null id, for a message
// whose id could not be read.
func errorReply(code int64, msg string) []byte {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": code, "message": msg}})
	return b
}

func (c *conn) writeLine(b []byte) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_, err := c.out.Write(append(b, '\n'))
	return err
}

func (c *conn) Read(ctx context.Context) (jsonrpc.Message, error) {
	if c.incoming == nil {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-c.closed:
			return nil, io.EOF
		default:
		}
		msg, err := c.next()
		if err != nil {
			c.drain()
			select {
			case <-c.closed: // the read failed because Close closed the input
				return nil, io.EOF
			default:
			}
		}
		return msg, err
	}
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case v := <-c.incoming:
		return v.msg, v.err
	case <-c.closed:
		return nil, io.EOF
	}
}

func (c *conn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if resp, ok := msg.(*jsonrpc.Response); ok && c.book != nil {
		raw, send, booked := c.book.Answer(resp)
		if booked {
			if !send {
				return nil // the client cancelled the call
			}
			b, err := callids.Encode(resp, raw)
			if err != nil {
				return err
			}
			return c.writeLine(b)
		}
	}
	if req, ok := msg.(*jsonrpc.Request); ok && c.book != nil {
		// A client's ids the SDK echoes (a listen stream's subscriptionId,
		// a progress token) go out as the client wrote them.
		restored := *req
		if end := c.book.Outgoing(&restored); end != nil {
			defer c.queueEndings(end) // once the acknowledgement is out
		}
		msg = &restored
	}
	b, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	return c.writeLine(b)
}

func (c *conn) Close() error {
	c.closeOnce.Do(func() {
		c.closeErr = errors.Join(c.in.Close(), c.out.Close())
		close(c.closed)
	})
	return c.closeErr
}

func (c *conn) SessionID() string { return "" }
