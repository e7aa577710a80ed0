package intent

import (
	"encoding/json"
	"fmt"
	"sync/atomic"
)

// EventKind tells what an agent [Event] carries.
type EventKind uint8

// The event kinds. The set is closed; code that switches on EventKind
// handles every value (see TestEventKindsHandled).
const (
	ToolOutput EventKind = iota + 1 // Value holds the output, as JSON
	ToolError                       // Message says what went wrong

	// eventKindEnd is one past the last EventKind: keep it last, so that
	// TestEventKindsHandled, which loops up to it, sees every new one.
	eventKindEnd
)

// EventKinds returns every EventKind; each call returns a new slice.
func EventKinds() []EventKind { return []EventKind{ToolOutput, ToolError} }

func (k EventKind) String() string {
	switch k {
	case ToolOutput:
		return "tool_output"
	case ToolError:
		return "tool_error"
	}
	return fmt.Sprintf("EventKind(%d)", uint8(k))
}

// Event is what a reducer tells the agent about the intent it applied.
type Event struct {
	Kind    EventKind
	Value   json.RawMessage // ToolOutput
	Message string          // ToolError
}

// eventBuffer bounds the events one dispatch may leave for its caller. A
// tool call reports only the last event, so a reducer that writes more
// loses its oldest ones (counted in Agent.Dropped), never the newest and
// never by blocking the session.
const eventBuffer = 64

// Agent is the write-only side of the channel from reducers to the AI
// agent: a reducer reports what a tool call should answer with Output or
// Error, and the session that owns the channel collects the events after
// the dispatch. A nil *Agent discards everything, which suits tests of a
// reducer alone. An Agent is safe for concurrent use.
type Agent struct {
	ch      chan Event
	dropped atomic.Uint64
}

func newAgent() *Agent { return &Agent{ch: make(chan Event, eventBuffer)} }

// Output reports v, encoded as JSON, as the answer to the tool call. A v
// that cannot be encoded is reported as a ToolError instead, so the call
// never looks like a success that said nothing.
func (a *Agent) Output(v any) {
	if a == nil {
		return
	}
	b, err := json.Marshal(v)
	if err != nil {
		a.send(Event{Kind: ToolError, Message: fmt.Sprintf("internal error: encoding the tool output: %v", err)})
		return
	}
	a.send(Event{Kind: ToolOutput, Value: b})
}

// Error reports that the tool call failed, with a message for the model
// that says what was wrong and what to do instead.
func (a *Agent) Error(msg string) {
	if a == nil {
		return
	}
	a.send(Event{Kind: ToolError, Message: msg})
}

// Errorf is Error with formatting.
func (a *Agent) Errorf(format string, args ...any) { a.Error(fmt.Sprintf(format, args...)) }

// Dropped is how many events were discarded because a dispatch wrote more
// than the buffer holds.
func (a *Agent) Dropped() uint64 {
	if a == nil {
		return 0
	}
	return a.dropped.Load()
}

// send queues e without ever blocking: when the buffer is full the oldest
// event makes room, since the newest is the one a tool call answers with.
func (a *Agent) send(e Event) {
	for {
		select {
		case a.ch <- e:
			return
		default:
		}
		select {
		case <-a.ch:
			a.dropped.Add(1)
		default:
		}
	}
}

// drain takes every queued event, oldest first.
func (a *Agent) drain() []Event {
	var out []Event
	for {
		select {
		case e := <-a.ch:
			out = append(out, e)
		default:
			return out
		}
	}
}

// Effects is what a reducer may use besides its state and intent.
type Effects struct {
	// Agent receives the reducer's answer to the tool call that caused
	// the dispatch. It is never nil inside a session.
	Agent *Agent
}
