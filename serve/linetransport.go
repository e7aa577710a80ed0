package serve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxLine is the longest JSON-RPC message the stdio transport accepts.
const maxLine = 16 << 20

// lineTransport is the stdio transport of indusr serve: one JSON-RPC
// message per line, as the SDK's mcp.IOTransport reads them, with two
// differences that a client notices.
//
//   - Speed. The SDK decodes each incoming message three times, each time
//     through a decoder that allocates a fresh 32 KiB buffer; on a small
//     call that garbage is most of what a round trip allocates. Requests
//     and notifications (all a client sends, bar answers to the rare
//     server-initiated request) are decoded here once, with encoding/json;
//     responses go through the SDK's own jsonrpc.DecodeMessage.
//   - Bad input. A line that is not JSON, a batch (dropped from MCP in
//     2025-06-18) or a line over 16 MiB is answered with a JSON-RPC error
//     naming the problem, and the session goes on; the SDK's transport
//     ends the session instead.
type lineTransport struct {
	in  io.ReadCloser
	out io.WriteCloser
}

func (t *lineTransport) Connect(context.Context) (mcp.Connection, error) {
	c := &lineConn{
		in:       t.in,
		out:      t.out,
		incoming: make(chan lineOrErr),
		closed:   make(chan struct{}),
	}
	go c.readLoop()
	return c, nil
}

type lineOrErr struct {
	msg jsonrpc.Message
	err error
}

type lineConn struct {
	in       io.ReadCloser
	out      io.WriteCloser
	writeMu  sync.Mutex
	incoming chan lineOrErr

	closeOnce sync.Once
	closed    chan struct{}
	closeErr  error
}

// readLoop reads on a goroutine of its own so that Read returns as soon
// as the connection is closed, even while stdin blocks.
func (c *lineConn) readLoop() {
	r := bufio.NewReaderSize(c.in, 64<<10)
	var long []byte // a line longer than the buffer, being gathered
	for {
		chunk, err := r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			if len(long)+len(chunk) <= maxLine {
				long = append(long, chunk...)
			} else {
				long = long[:0:0]
				c.skipTo(r) // drop the rest of the line
				c.reply(tooLong)
			}
			continue
		}
		line := chunk
		if len(long) > 0 {
			line = append(long, chunk...)
			long = nil
		}
		if len(line) > maxLine {
			c.reply(tooLong)
		} else if len(bytes.TrimSpace(line)) > 0 {
			msg, reply := decodeLine(line)
			if reply != nil {
				c.reply(reply)
			} else {
				select {
				case c.incoming <- lineOrErr{msg: msg}:
				case <-c.closed:
					return
				}
			}
		}
		if err != nil {
			select {
			case c.incoming <- lineOrErr{err: err}:
			case <-c.closed:
			}
			return
		}
	}
}

var tooLong = errorReply(jsonrpc.CodeInvalidRequest, fmt.Sprintf("message over the %d MiB limit; it was dropped", maxLine>>20))

// skipTo discards input up to the end of the current line.
func (c *lineConn) skipTo(r *bufio.Reader) {
	for {
		_, err := r.ReadSlice('\n')
		if !errors.Is(err, bufio.ErrBufferFull) {
			return
		}
	}
}

// request is the wire form of a request or notification.
type request struct {
	Version string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  *string         `json:"method"`
	Params  json.RawMessage `json:"params"`
}

// decodeLine decodes one line into a message, or returns the error
// response to send instead.
func decodeLine(line []byte) (jsonrpc.Message, []byte) {
	line = bytes.TrimSpace(line)
	if line[0] == '[' {
		return nil, errorReply(jsonrpc.CodeInvalidRequest, "JSON-RPC batches are not supported (MCP removed them in 2025-06-18): send one message per line")
	}
	var req request
	if err := json.Unmarshal(line, &req); err != nil {
		return nil, errorReply(jsonrpc.CodeParseError, "the line is not a JSON-RPC message: "+err.Error())
	}
	if req.Method == nil {
		// A response to a request of ours: the SDK's rules apply.
		msg, err := jsonrpc.DecodeMessage(line)
		if err != nil {
			return nil, errorReply(jsonrpc.CodeInvalidRequest, err.Error())
		}
		return msg, nil
	}
	if req.Version != "2.0" {
		return nil, errorReply(jsonrpc.CodeInvalidRequest, fmt.Sprintf(`"jsonrpc" must be "2.0", not %q`, req.Version))
	}
	id, err := decodeID(req.ID)
	if err != nil {
		return nil, errorReply(jsonrpc.CodeInvalidRequest, err.Error())
	}
	return &jsonrpc.Request{ID: id, Method: *req.Method, Params: req.Params}, nil
}

// decodeID reads a request id: absent or null (a notification), a
// number or a string.
func decodeID(raw json.RawMessage) (jsonrpc.ID, error) {
	if len(raw) == 0 || string(raw) == "null" {
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

func (c *lineConn) reply(b []byte) {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	c.out.Write(append(b[:len(b):len(b)], '\n')) // a copy: b may be shared
}

func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case v := <-c.incoming:
		return v.msg, v.err
	case <-c.closed:
		return nil, io.EOF
	}
}

func (c *lineConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	b, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_, err = c.out.Write(append(b, '\n'))
	return err
}

func (c *lineConn) Close() error {
	c.closeOnce.Do(func() {
		c.closeErr = errors.Join(c.in.Close(), c.out.Close())
		close(c.closed)
	})
	return c.closeErr
}

func (c *lineConn) SessionID() string { return "" }
