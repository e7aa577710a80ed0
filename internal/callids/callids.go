// Package callids is a server's book of the calls it has taken and not yet
// answered, for the transports under `indusr serve` (stdio, JSON bodies
// and event streams over HTTP), and the codec that keeps every id a
// client wrote exactly as it wrote it.
//
// The MCP SDK keeps a request id as an int64 or a string, so an id such as
// 18446744073709551616 or 1.5 would come back changed, and 1.5 would
// collide with a call 1 in flight. A progress token, kept as a JSON
// number, loses the digits past 2^53 the same way. So on the way into the
// SDK each id the client wrote (a call's id, the requestId of a
// cancellation, a progress token) becomes a string that holds the
// client's JSON ([Wrap]), and on the way out every place the SDK echoes
// one (a response's id, the subscriptionId in the _meta of a
// subscriptions/listen stream's notifications and result, a progress
// notification's token) gets the client's JSON back, byte for byte
// ([Restore], [RestoreJSON]). The codec holds no state, so a stored event
// replayed long after its call ended comes back right too.
//
// The book also knows which calls the client cancelled (MCP: the receiver
// of notifications/cancelled does not respond, so their answers are
// dropped), which of them are subscriptions/listen streams (ended when the
// input ends), and when no call is left to answer (stdio holds the end of
// its input back until then).
//
// The SDK's event streams keep their own calls; [Cancels] is the cancel
// part of the book for them.
package callids

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// Methods the book reads.
const (
	cancelledMethod = "notifications/cancelled"
	listenMethod    = "subscriptions/listen"
	ackMethod       = "notifications/subscriptions/acknowledged"
)

// ErrDuplicate refuses a call whose id is the id of a call still open.
var ErrDuplicate = errors.New("duplicate id: a call with this id is still in flight; use another id")

// Book is the calls of one connection. The zero value is ready; it is
// safe for concurrent use.
type Book struct {
	mu    sync.Mutex
	calls map[string]*call // by the client's id (see key)
	idle  chan struct{}    // closed while no call is open; nil means closed
	ended bool             // the client's input has ended (EndInput)
}

type call struct {
	raw       json.RawMessage // the id as the client wrote it
	method    string
	cancelled bool
	acked     bool // a listen stream whose acknowledgement went out
}

// Take enters a call read from the wire: req.ID becomes the client's id
// wrapped for the SDK ([Wrap]), raw (the id's JSON as it came) is kept
// for the answer, and a progress token in the params is wrapped too. A
// raw id that is not a number or a string is an error, and so is the id
// of a call still open ([ErrDuplicate]).
func (b *Book) Take(req *jsonrpc.Request, raw json.RawMessage) error {
	raw = bytes.TrimSpace(raw)
	k, err := key(raw)
	if err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, dup := b.calls[k]; dup {
		return ErrDuplicate
	}
	if b.calls == nil {
		b.calls = make(map[string]*call)
	}
	if len(b.calls) == 0 {
		b.idle = make(chan struct{})
	}
	b.calls[k] = &call{raw: bytes.Clone(raw), method: req.Method}
	req.ID, _ = jsonrpc.MakeID(Wrap(raw)) // a string is always an id
	req.Params = wrapToken(req.Params)
	return nil
}

// Cancel reads a notifications/cancelled for the SDK: the call it names is
// marked (its answer will be dropped) and the notification is rewritten to
// name the id the SDK knows, so the SDK cancels the call's context. It
// reports whether to deliver the notification: false when it names no
// open call. A request of any other method is delivered as it is.
func (b *Book) Cancel(req *jsonrpc.Request) bool {
	if req.Method != cancelledMethod || req.IsCall() {
		return true
	}
	params, ok := parseObject(req.Params)
	if !ok {
		return false
	}
	rawID, _ := params.get(requestIDKey)
	raw := bytes.TrimSpace(rawID)
	k, err := key(raw)
	if err != nil {
		return false
	}
	b.mu.Lock()
	c, ok := b.calls[k]
	if ok {
		c.cancelled = true
	}
	b.mu.Unlock()
	if !ok {
		return false
	}
	params.set(requestIDKey, wrapJSON(raw))
	req.Params = params.encode()
	return true
}

// Answer closes the call a response answers. It returns the client's id
// as written and whether to send the response (not for a cancelled call);
// ok is false for a response that answers no call of the book, which goes
// out as it is.
func (b *Book) Answer(resp *jsonrpc.Response) (raw json.RawMessage, send, ok bool) {
	s, isString := resp.ID.Raw().(string)
	if !isString {
		return nil, true, false
	}
	raw, wrapped := Unwrap(s)
	if !wrapped {
		return nil, true, false
	}
	k, err := key(raw)
	if err != nil {
		return nil, true, false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	c, ok := b.calls[k]
	if !ok {
		return nil, true, false
	}
	delete(b.calls, k)
	if len(b.calls) == 0 && b.idle != nil {
		close(b.idle)
		b.idle = nil
	}
	return c.raw, !c.cancelled, true
}

// EndInput says that the client's input has ended: the listen streams it
// opened are ended, each by the cancellation returned here (streams
// already acknowledged) or by [Book.Outgoing] (streams acknowledged
// later: cancelled before its acknowledgement, a stream would end without
// one). The SDK answers each stream it is handed, and those answers go
// out (the calls are not marked cancelled), which tells the client that
// its stream ended.
func (b *Book) EndInput() []*jsonrpc.Request {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.ended = true
	var out []*jsonrpc.Request
	for _, c := range b.calls {
		if c.method == listenMethod && c.acked && !c.cancelled {
			out = append(out, endListen(c.raw))
		}
	}
	return out
}

// endListen is the cancellation, as the SDK reads it, that ends the
// listen stream of the client's id raw.
func endListen(raw json.RawMessage) *jsonrpc.Request {
	p, _ := marshal(map[string]json.RawMessage{
		"requestId": wrapJSON(raw),
		"reason":    json.RawMessage(`"the client closed its input"`),
	})
	return &jsonrpc.Request{Method: cancelledMethod, Params: p}
}

// Outgoing readies a notification or call the server sends: the client's
// ids in it are restored ([Restore]; req is changed in place). When it
// acknowledges a listen stream after the input ended, it returns the
// cancellation that ends that stream, for the connection to deliver.
func (b *Book) Outgoing(req *jsonrpc.Request) (end *jsonrpc.Request) {
	Restore(req)
	if req.Method != ackMethod {
		return nil
	}
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(req.Params, &p) != nil {
		return nil
	}
	k, err := key(p.Meta[SubscriptionIDKey])
	if err != nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	c, ok := b.calls[k]
	if !ok || c.method != listenMethod || c.acked {
		return nil
	}
	c.acked = true
	if b.ended && !c.cancelled {
		return endListen(c.raw)
	}
	return nil
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
// The result is the SDK's JSON already, with the client's ids it echoes
// put back (a listen stream's subscriptionId); it is compacted only if it
// holds a line break (stdio frames a message as one line).
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
	} else if body = restoreMembers(resp.Result); bytes.IndexByte(body, '\n') >= 0 {
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
