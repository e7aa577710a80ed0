package conductor

import (
	"bytes"
	"context"
	"encoding/json"
	"sync"

	"github.com/indusagi/induscode/provider"
)

// askOrder puts the questions of one message's tool calls to the user one
// at a time and in the order of the calls, though read-only calls run in
// parallel: call i asks only once every earlier call has asked or ended.
type askOrder struct {
	mu     sync.Mutex
	uses   []provider.Block
	taken  []bool
	passed []chan struct{}
}

func newAskOrder(uses []provider.Block) *askOrder {
	o := &askOrder{uses: uses, taken: make([]bool, len(uses)), passed: make([]chan struct{}, len(uses))}
	for i := range o.passed {
		o.passed[i] = make(chan struct{})
	}
	return o
}

// claim finds the call of name with input among the message's calls (the
// first not claimed yet: equal calls are interchangeable) and returns
// its turn; -1 when it is not one of them.
func (o *askOrder) claim(name string, input json.RawMessage) int {
	if o == nil {
		return -1
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	for i, u := range o.uses {
		in := u.Input
		if len(in) == 0 {
			in = json.RawMessage(`{}`)
		}
		if !o.taken[i] && u.Name == name && bytes.Equal(in, input) {
			o.taken[i] = true
			return i
		}
	}
	return -1
}

// id returns the tool use id of call i ("" when i is not a call).
func (o *askOrder) id(i int) string {
	if o == nil || i < 0 || i >= len(o.uses) {
		return ""
	}
	return o.uses[i].ID
}

// wait returns once every call before i has asked or ended.
func (o *askOrder) wait(ctx context.Context, i int) error {
	for j := 0; j < i; j++ {
		select {
		case <-o.passed[j]:
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
	return nil
}

// pass says call i has asked its question, or will ask none.
func (o *askOrder) pass(i int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	select {
	case <-o.passed[i]:
	default:
		close(o.passed[i])
	}
}
