package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/indusagi/induscode/internal/childlog"
	"github.com/indusagi/induscode/internal/jsonline"
)

// maxMessage bounds one line the addon writes. A protocol message larger
// than 16 MiB is a runaway, not an answer; the same limit as a tool
// result the deck keeps in memory.
const maxMessage = 16 << 20

// message is one JSON-RPC 2.0 message, in either direction.
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      *int64          `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *RemoteError    `json:"error,omitempty"`
}

// RemoteError is an error the addon answered with.
type RemoteError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *RemoteError) Error() string {
	return fmt.Sprintf("the addon answered error %d: %s", e.Code, e.Message)
}

// JSON-RPC error codes the host sends.
const codeMethodNotFound = -32601

// conn is the host's end of one addon process's stdio: requests out on
// w, one line each; answers read from r by one goroutine, matched to the
// pending calls by id. Lines that are not JSON-RPC go to the log.
type conn struct {
	w   io.Writer
	wmu sync.Mutex
	log *childlog.Log

	mu      sync.Mutex
	next    int64
	pending map[int64]chan message
	err     error         // why the conn ended; set once
	done    chan struct{} // closed when the read loop ends
}

func newConn(w io.Writer, log *childlog.Log) *conn {
	return &conn{w: w, log: log, pending: make(map[int64]chan message), done: make(chan struct{})}
}

// writeWait bounds a write that has no deadline of its own: an addon
// that stopped reading its stdin fills the pipe, and a write to a full
// pipe would otherwise wait for ever, holding every later one.
const writeWait = 5 * time.Second

// cancelWait bounds the write of a $/cancelRequest.
const cancelWait = 250 * time.Millisecond

// deadliner is a writer whose writes can be bounded (an *os.File pipe).
type deadliner interface {
	SetWriteDeadline(time.Time) error
}

// write sends one message as one line, by ctx's deadline (or writeWait).
func (c *conn) write(ctx context.Context, m message) error {
	m.JSONRPC = "2.0"
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if d, ok := c.w.(deadliner); ok {
		deadline, ok := ctx.Deadline()
		if !ok {
			deadline = time.Now().Add(writeWait)
		}
		_ = d.SetWriteDeadline(deadline)
	}
	_, err = c.w.Write(b)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		err = fmt.Errorf("the addon does not read its stdin: %w", context.DeadlineExceeded)
	}
	return err
}

// notify sends a notification.
func (c *conn) notify(ctx context.Context, method string, params any) error {
	raw, err := json.Marshal(params)
	if err != nil {
		return err
	}
	return c.write(ctx, message{Method: method, Params: raw})
}

// call sends a request and waits for its answer, decoding the result into
// out (nil: ignore it). When ctx ends first, the addon is told with
// $/cancelRequest and ctx's error is returned.
func (c *conn) call(ctx context.Context, method string, params, out any) error {
	raw, err := json.Marshal(params)
	if err != nil {
		return err
	}
	ch := make(chan message, 1)
	c.mu.Lock()
	if c.err != nil {
		err := c.err
		c.mu.Unlock()
		return err
	}
	c.next++
	id := c.next
	c.pending[id] = ch
	c.mu.Unlock()
	if err := c.write(ctx, message{ID: &id, Method: method, Params: raw}); err != nil {
		c.forget(id)
		return fmt.Errorf("sending %s: %w", method, err)
	}
	select {
	case m, ok := <-ch:
		if !ok {
			return c.closedErr()
		}
		if m.Error != nil {
			return m.Error
		}
		if out != nil {
			if err := json.Unmarshal(nullable(m.Result), out); err != nil {
				return fmt.Errorf("the answer to %s does not fit: %v", method, err)
			}
		}
		return nil
	case <-ctx.Done():
		c.forget(id)
		// Briefly: an addon too busy to read its stdin must not hold the
		// caller that is giving up on it.
		nctx, ncancel := context.WithTimeout(context.Background(), cancelWait)
		_ = c.notify(nctx, MethodCancel, CancelParams{ID: id})
		ncancel()
		return ctx.Err()
	}
}

func (c *conn) forget(id int64) {
	c.mu.Lock()
	delete(c.pending, id)
	c.mu.Unlock()
}

func (c *conn) closedErr() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// readLoop reads the addon's stdout until it ends; a line over the limit
// is dropped, and reading goes on.
func (c *conn) readLoop(r io.Reader) {
	defer close(c.done)
	lines := jsonline.NewReader(r, maxMessage)
	for {
		line, err := lines.Next()
		var tooLong *jsonline.TooLongError
		switch {
		case errors.As(err, &tooLong):
			c.log.Line("host", fmt.Sprintf("a stdout line over %d bytes was dropped", maxMessage))
		case err != nil:
			return // the reaper ends the conn with the exit status
		default:
			c.handle(line)
		}
	}
}

// handle dispatches one line from the addon.
func (c *conn) handle(line []byte) {
	var m message
	if err := json.Unmarshal(line, &m); err != nil || m.JSONRPC != "2.0" {
		// An addon that prints to stdout by mistake loses nothing: the
		// line is kept in its log and the conversation goes on.
		c.log.Line("stdout", string(line))
		return
	}
	switch {
	case m.Method != "" && m.ID != nil:
		c.log.Line("host", fmt.Sprintf("the addon sent a request (%s); the host takes none", m.Method))
		_ = c.write(context.Background(), message{ID: m.ID, Error: &RemoteError{Code: codeMethodNotFound, Message: "the host takes no requests: " + m.Method}})
	case m.Method != "":
		c.log.Line("host", "notification from the addon ignored: "+m.Method)
	case m.ID != nil:
		c.mu.Lock()
		ch, ok := c.pending[*m.ID]
		delete(c.pending, *m.ID)
		c.mu.Unlock()
		if !ok {
			c.log.Line("host", fmt.Sprintf("an answer to request %d, which is no longer waited for", *m.ID))
			return
		}
		ch <- m
	default:
		c.log.Line("stdout", string(line))
	}
}

// end fails the pending calls and every later one with err.
func (c *conn) end(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err == nil {
		c.err = err
	}
	for id, ch := range c.pending {
		close(ch)
		delete(c.pending, id)
	}
}
