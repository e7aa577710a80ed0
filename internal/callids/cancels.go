package callids

import (
	"encoding/json"
	"sync"
)

// Cancels is the cancel bookkeeping of a connection whose transport
// keeps the client's ids as they are (the SDK's event streams): the calls
// in flight by the client's id, and which of them the client cancelled,
// so that their answers are dropped. The zero value is ready; it is safe
// for concurrent use.
type Cancels struct {
	mu    sync.Mutex
	calls map[string]bool // the client's id (see key) -> cancelled
}

// Take enters a call the client sent. A call that reuses the id of a
// cancelled one starts afresh: its answer goes out.
func (c *Cancels) Take(id json.RawMessage) {
	k, err := key(id)
	if err != nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.calls == nil {
		c.calls = make(map[string]bool)
	}
	c.calls[k] = false
}

// Cancel marks the call a notifications/cancelled names (its requestId).
// It reports whether that call is in flight.
func (c *Cancels) Cancel(id json.RawMessage) bool {
	k, err := key(id)
	if err != nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.calls[k]; !ok {
		return false
	}
	c.calls[k] = true
	return true
}

// Answer reports whether the answer to call id must be dropped, because
// the client cancelled the call. A transport that passes one answer
// through two steps (a store for resumption, then the stream) asks with
// last false at the first and true at the second; an answer that is sent
// closes its call at the first step, a dropped one at the last.
func (c *Cancels) Answer(id json.RawMessage, last bool) (drop bool) {
	k, err := key(id)
	if err != nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	cancelled, ok := c.calls[k]
	if !ok {
		return false
	}
	if !cancelled || last {
		delete(c.calls, k)
	}
	return cancelled
}
