package intent

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
)

// Modality is the state machine of one kind of document: it reduces an
// intent I over a state S. Reduce must not change the state it is given
// (copy what it changes), since that value may still be read by others;
// an error leaves the state as it was and becomes the tool call's
// ToolError. A modality may also be a [Compiler].
type Modality[S, I any] interface {
	Reduce(state S, in I, fx Effects) (S, error)
}

// Compiler is the optional extra of a modality whose state has derived
// parts (bounds, an index, a rendering): Compile recomputes them after
// every change, before the state is committed.
type Compiler[S any] interface {
	Compile(state S) S
}

// Dispatcher applies intents of type I and returns the agent events each
// one caused. [*Session] and [*Parent] are dispatchers, and so is a child
// of a parent ([Parent.At]); [Tools] builds tools over any of them.
type Dispatcher[I any] interface {
	Dispatch(ctx context.Context, in I) ([]Event, error)
}

// Session holds the committed state of one modality and applies intents
// to it one at a time. It owns the agent channel its reducer writes to.
// A Session is safe for concurrent use.
type Session[S, I any] struct {
	mod     Modality[S, I]
	compile func(S) S
	agent   *Agent

	mu      sync.Mutex // serialises dispatches: reduce, recompile, commit, emit
	current atomic.Pointer[commit[S]]

	subMu sync.Mutex
	subs  map[*func(S)]struct{}
}

// commit is one committed state and its version (the number of commits
// before it).
type commit[S any] struct {
	state   S
	version uint64
}

var _ Dispatcher[struct{}] = (*Session[int, struct{}])(nil)

// NewSession starts a session of m at initial, which is compiled first
// when m is a [Compiler].
func NewSession[S, I any](m Modality[S, I], initial S) *Session[S, I] {
	s := &Session[S, I]{mod: m, agent: newAgent()}
	if c, ok := m.(Compiler[S]); ok {
		s.compile = c.Compile
		initial = c.Compile(initial)
	}
	s.current.Store(&commit[S]{state: initial})
	return s
}

// ErrNilSession is returned by dispatches into a nil session.
var ErrNilSession = errors.New("intent: dispatch into a nil session")

// Dispatch applies in: reduce, recompile, commit, emit, all under the
// session's lock, and returns the agent events the reducer wrote, oldest
// first. Events written outside any dispatch are discarded first, since
// they answer no call. A reducer error leaves the state alone and comes
// back as a ToolError event; the Go error is only for a ctx that ended
// before the dispatch began (also while it waited for another dispatch),
// in which case nothing was applied.
func (s *Session[S, I]) Dispatch(ctx context.Context, in I) ([]Event, error) {
	if s == nil {
		return nil, ErrNilSession
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	// A caller that gave up while waiting for the lock has already been
	// told the call did not happen; applying it now would make that a lie.
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.agent.drain()
	cur := s.current.Load()
	next, err := s.mod.Reduce(cur.state, in, Effects{Agent: s.agent})
	if err != nil {
		s.agent.Error(err.Error())
	} else {
		s.commitAndEmit(cur, next)
	}
	return s.agent.drain(), nil
}

// update applies f to the committed state and then recompiles, commits and
// emits, under the session's lock. Parents fold a child's state in this
// way.
func (s *Session[S, I]) update(f func(S) S) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cur := s.current.Load()
	s.commitAndEmit(cur, f(cur.state))
}

// commitAndEmit recompiles next, makes it the committed state and tells
// the subscribers; s.mu is held.
func (s *Session[S, I]) commitAndEmit(cur *commit[S], next S) {
	if s.compile != nil {
		next = s.compile(next)
	}
	s.current.Store(&commit[S]{state: next, version: cur.version + 1})
	for _, fn := range s.subscribers() {
		fn(next)
	}
}

// State returns the committed state. It does not wait for a dispatch in
// progress (it sees the commit before it), so subscribers may call it.
// Treat the value as read-only: the session and other readers share it.
func (s *Session[S, I]) State() S { return s.current.Load().state }

// Version is the number of commits so far; a dispatch that failed made
// none.
func (s *Session[S, I]) Version() uint64 { return s.current.Load().version }

// Subscribe registers fn to receive every newly committed state, in commit
// order. fn runs under the session's lock, so it must not dispatch into
// the same session (that would wait forever); it may call State and
// Subscribe. The returned function stops the subscription.
func (s *Session[S, I]) Subscribe(fn func(S)) (stop func()) {
	key := &fn
	s.subMu.Lock()
	if s.subs == nil {
		s.subs = make(map[*func(S)]struct{})
	}
	s.subs[key] = struct{}{}
	s.subMu.Unlock()
	return func() {
		s.subMu.Lock()
		delete(s.subs, key)
		s.subMu.Unlock()
	}
}

func (s *Session[S, I]) subscribers() []func(S) {
	s.subMu.Lock()
	defer s.subMu.Unlock()
	out := make([]func(S), 0, len(s.subs))
	for k := range s.subs {
		out = append(out, *k)
	}
	return out
}
