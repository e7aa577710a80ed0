// Package callids is a server's book of the calls it has taken and not yet
// answered, for the transports under `indusr serve` (stdio and JSON
// bodies over HTTP).
//
// The MCP SDK keeps a request id as an int64 or a string, so an id such as
// 18446744073709551616 or 1.5 would come back changed, and 1.5 would
// collide with a call 1 in flight. The book gives every call an id of its
// own on the way into the SDK and puts the client's id back, byte for
// byte as the client wrote it, on the way out. It also knows which calls
// the client cancelled (MCP: the receiver of notifications/cancelled does
// not respond, so their answers are dropped) and when no call is left to
// answer (stdio holds the end of its input back until then).
//
// The SDK's event streams keep the client's ids themselves; [Cancels]
// is the cancel part of the book for them.
package callids

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// cancelledMethod is the notification a client sends to cancel a call.
const cancelledMethod = "notifications/cancelled"

// ErrDuplicate refuses a call whose id is the id of a call still open.
var ErrDuplicate = errors.New("duplicate id: a call with this id is still in flight; use another id")

// Book is the calls of one connection. The zero value is ready; it is
// safe for concurrent use.
type Book struct {
	mu    sync.Mutex
	next  int64
	byKey map[string]int64 // the client's id (see key) -> the book's
	calls map[int64]*call
	idle  chan struct{} // closed while no call is open; nil means closed
}

type call struct {
	raw       json.RawMessage // the id as the client wrote it
	key       string
	cancelled bool
}

// Take enters a call read from the wire: req.ID becomes the book's own id,
// and raw (the id's JSON as it came) is kept for the answer. A raw id that
// is not a number or a string is an error, and so is the id of a call
// still open ([ErrDuplicate]).
func (b *Book) Take(req *jsonrpc.Request, raw json.RawMessage) error {
	raw = bytes.TrimSpace(raw)
	k, err := key(raw)
	if err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, dup := b.byKey[k]; dup {
		return ErrDuplicate
	}
	if b.calls == nil {
		b.byKey = make(map[string]int64)
		b.calls = make(map[int64]*call)
	}
	if len(b.calls) == 0 {
		b.idle = make(chan struct{})
	}
	b.next++
	b.byKey[k] = b.next
	b.calls[b.next] = &call{raw: bytes.Clone(raw), key: k}
	req.ID, _ = jsonrpc.MakeID(float64(b.next)) // exact: far below 2^53
	return nil
}

// Cancel reads a notifications/cancelled for the SDK: the call it names is
// marked (its answer will be dropped) and the notification is rewritten to
// name the book's id, so the SDK cancels the call's context. It reports
// whether to deliver the notification: false when it names no open call,
// since the SDK would read the client's id as one of the book's. A request
// of any other method is delivered as it is.
func (b *Book) Cancel(req *jsonrpc.Request) bool {
	if req.Method != cancelledMethod || req.IsCall() {
		return true
	}
	var params map[string]json.RawMessage
	if json.Unmarshal(req.Params, &params) != nil {
		return false
	}
	k, err := key(params["requestId"])
	if err != nil {
		return false
	}
	b.mu.Lock()
	n, ok := b.byKey[k]
	if ok {
		b.calls[n].cancelled = true
	}
	b.mu.Unlock()
	if !ok {
		return false
	}
	params["requestId"] = json.RawMessage(strconv.FormatInt(n, 10))
	p, err := json.Marshal(params)
	if err != nil {
		return false
	}
	req.Params = p
	return true
}

// Answer closes the call a response answers. It returns the client's id
// as written and whether to send the response (not for a cancelled call);
// ok is false for a response that answers no call of the book, which goes
// out as it is.
func (b *Book) Answer(resp *jsonrpc.Response) (raw json.RawMessage, send, ok bool) {
	n, isInt := resp.ID.Raw().(int64)
	if !isInt {
		return nil, true, false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	c, ok := b.calls[n]
	if !ok {
		return nil, true, false
	}
	delete(b.calls, n)
	delete(b.byKey, c.key)
	if len(b.calls) == 0 && b.idle != nil {
		close(b.idle)
		b.idle = nil
	}
	return c.raw, !c.cancelled, true
}

// Open is the number of calls taken and not answered.
func (b *Book) Open() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.calls)
}

// closed is a channel that is always closed.
var closed = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// Idle returns a channel that is closed once no call is open.
func (b *Book) Idle() <-chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.idle == nil {
		return closed
	}
	return b.idle
}

// Encode is jsonrpc.EncodeMessage for a response with the client's id.
// The result is the SDK's JSON already; it is compacted only if it holds
// a line break (stdio frames a message as one line).
func Encode(resp *jsonrpc.Response, raw json.RawMessage) ([]byte, error) {
	var body []byte
	member := `,"result":`
	if resp.Error != nil {
		member = `,"error":`
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(wireError(resp.Error)); err != nil {
			return nil, fmt.Errorf("encoding a JSON-RPC error: %w", err)
		}
		body = bytes.TrimRight(buf.Bytes(), "\n")
	} else if body = resp.Result; bytes.IndexByte(body, '\n') >= 0 {
		var buf bytes.Buffer
		if err := json.Compact(&buf, body); err != nil {
			return nil, fmt.Errorf("encoding a JSON-RPC result: %w", err)
		}
		body = buf.Bytes()
	}
	out := make([]byte, 0, len(raw)+len(body)+32)
	out = append(out, `{"jsonrpc":"2.0","id":`...)
	out = append(out, raw...)
	if len(body) > 0 {
		out = append(out, member...)
		out = append(out, body...)
	}
	return append(out, '}'), nil
}

// wireError is the SDK's rule for an error on the wire: a *jsonrpc.Error
// as it is, another error by its text with the code of a wrapped one.
func wireError(err error) *jsonrpc.Error {
	if we, ok := err.(*jsonrpc.Error); ok {
		return we
	}
	out := &jsonrpc.Error{Message: err.Error()}
	if wrapped := (*jsonrpc.Error)(nil); errors.As(err, &wrapped) {
		out.Code = wrapped.Code
	}
	return out
}

// key names an id for duplicate checks: a string by its value (escapes
// decoded), a number by its text, so 1 and 1.5 are two ids.
func key(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "", errors.New("the id is missing")
	}
	switch c := raw[0]; {
	case c == '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", fmt.Errorf("the id %s is not a valid string: %v", raw, err)
		}
		return "s" + s, nil
	case c == '-' || c >= '0' && c <= '9':
		var n json.Number
		if err := json.Unmarshal(raw, &n); err != nil {
			return "", fmt.Errorf("the id %s is not a valid number", raw)
		}
		return "n" + string(raw), nil
	}
	return "", fmt.Errorf("the id must be a number or a string, not %s", raw)
}
