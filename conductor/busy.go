package conductor

import (
	"errors"
	"fmt"
	"slices"

	"github.com/indusagi/induscode/provider"
)

// ErrBusy is the error (wrapped, naming the operation) of a Run or
// Compact asked for while a Run or Compact of the same conversation is
// going: the conversation has one writer at a time. A UI waits for the
// Result, or cancels the run, and asks again. SendMessage, SetModel and
// SetThinking are never busy: they take effect at the next model call.
var ErrBusy = errors.New("the conversation is busy: a run or compaction is in progress")

// acquire marks the conversation in use by op, or says it is busy.
func (c *Conductor) acquire(op string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.busy != "" {
		return fmt.Errorf("%s: %w (%s)", op, ErrBusy, c.busy)
	}
	c.busy = op
	c.published = slices.Clone(c.messages)
	return nil
}

// release ends op's use of the conversation.
func (c *Conductor) release() {
	c.mu.Lock()
	c.busy = ""
	c.published = nil
	c.mu.Unlock()
}

// publish makes the conversation as it stands what Messages returns
// while the run goes on: called by the run's goroutine at turn
// boundaries.
func (c *Conductor) publish() {
	snap := slices.Clone(c.messages)
	c.mu.Lock()
	c.published = snap
	c.mu.Unlock()
}

// Messages returns a copy of the conversation so far; during a Run, the
// conversation as of the run's last turn boundary.
func (c *Conductor) Messages() []provider.Message {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.busy != "" {
		return slices.Clone(c.published)
	}
	return slices.Clone(c.messages)
}
