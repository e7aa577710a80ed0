package shell

import (
	"sync"
	"time"
)

// notifier tells waiters that a process wrote output: wait returns a
// channel that fire closes. Take the channel before looking at the
// output, and no write between the look and the select is missed.
// A nil notifier ignores fire.
type notifier struct {
	mu   sync.Mutex
	ch   chan struct{}
	last time.Time // the latest output
}

func newNotifier() *notifier { return &notifier{ch: make(chan struct{})} }

func (n *notifier) wait() <-chan struct{} {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.ch
}

func (n *notifier) fire() {
	if n == nil {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	n.last = time.Now()
	close(n.ch)
	n.ch = make(chan struct{})
}

// lastOutput returns when output last arrived (zero: never).
func (n *notifier) lastOutput() time.Time {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.last
}
