package intent

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
)

// Child addresses an intent to one child of a parent session: the child's
// ID and the intent it should apply.
type Child[CI any] struct {
	ID     string
	Intent CI
}

// ParentModality is the modality of a document made of child documents (a
// lesson of whiteboard slides). Besides its own intents it folds a child's
// committed state into its own, which the parent does after every change
// of a child, before it recompiles.
type ParentModality[S, I, CS any] interface {
	Modality[S, I]
	Fold(state S, id string, child CS) S
}

// WarmFunc creates the session of the child id on its first use: a new
// document, or one loaded from wherever the host keeps it.
type WarmFunc[CS, CI any] func(ctx context.Context, id string) (*Session[CS, CI], error)

// Parent is a session whose document holds child sessions. Its own intents
// go through Dispatch; a child's go through DispatchChild (or a child's
// dispatcher, [Parent.At]), which warms the child if it is not yet
// running, lets the child run its own reduce cycle, and then folds the
// child's new state into the parent and recompiles it. A Parent is safe
// for concurrent use.
type Parent[S, I, CS, CI any] struct {
	self *Session[S, I]
	fold func(S, string, CS) S
	warm WarmFunc[CS, CI]

	// mu makes a child dispatch and the fold that follows one step. Lock
	// order: mu, then a session's own lock.
	mu sync.Mutex
	// childMu guards children apart from mu, so that Children may be
	// called from a subscriber (which runs while mu is held).
	childMu  sync.Mutex
	children map[string]*Session[CS, CI]
}

var _ Dispatcher[struct{}] = (*Parent[int, struct{}, int, int])(nil)

// NewParent starts a parent session of m at initial; warm creates
// children on first use.
func NewParent[S, I, CS, CI any](m ParentModality[S, I, CS], initial S, warm WarmFunc[CS, CI]) *Parent[S, I, CS, CI] {
	return &Parent[S, I, CS, CI]{
		self:     NewSession[S, I](m, initial),
		fold:     m.Fold,
		warm:     warm,
		children: make(map[string]*Session[CS, CI]),
	}
}

// ErrNoChildID is returned for a child dispatch without a child ID.
var ErrNoChildID = errors.New("intent: a child intent needs the child's ID")

// Dispatch applies one of the parent's own intents, as [Session.Dispatch]
// does.
func (p *Parent[S, I, CS, CI]) Dispatch(ctx context.Context, in I) ([]Event, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.self.Dispatch(ctx, in)
}

// DispatchChild applies c.Intent in the child c.ID, warming it first if
// needed, and returns the child's events. When the child committed a
// change the parent folds the child's state in, recompiles, commits and
// emits. A child that cannot be warmed is an error and changes nothing.
func (p *Parent[S, I, CS, CI]) DispatchChild(ctx context.Context, c Child[CI]) ([]Event, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	child, err := p.warmLocked(ctx, c.ID)
	if err != nil {
		return nil, err
	}
	before := child.Version()
	events, err := child.Dispatch(ctx, c.Intent)
	if err != nil {
		return nil, err
	}
	if child.Version() != before {
		p.foldLocked(c.ID, child)
	}
	return events, nil
}

// Warm starts the child id if it is not running yet and folds its first
// state into the parent; it returns the child's session, for reading and
// subscribing. Send the child intents through the parent: a dispatch
// straight into the child's session is not folded into the parent.
func (p *Parent[S, I, CS, CI]) Warm(ctx context.Context, id string) (*Session[CS, CI], error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.warmLocked(ctx, id)
}

func (p *Parent[S, I, CS, CI]) warmLocked(ctx context.Context, id string) (*Session[CS, CI], error) {
	if id == "" {
		return nil, ErrNoChildID
	}
	p.childMu.Lock()
	child, ok := p.children[id]
	p.childMu.Unlock()
	if ok {
		return child, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	child, err := p.warm(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("warming child %s: %w", id, err)
	}
	if child == nil {
		return nil, fmt.Errorf("warming child %s: the warm function returned no session", id)
	}
	p.childMu.Lock()
	p.children[id] = child
	p.childMu.Unlock()
	p.foldLocked(id, child)
	return child, nil
}

func (p *Parent[S, I, CS, CI]) foldLocked(id string, child *Session[CS, CI]) {
	cs := child.State()
	p.self.update(func(s S) S { return p.fold(s, id, cs) })
}

// Children returns the IDs of the running children, sorted.
func (p *Parent[S, I, CS, CI]) Children() []string {
	p.childMu.Lock()
	defer p.childMu.Unlock()
	ids := make([]string, 0, len(p.children))
	for id := range p.children {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// Session returns the parent's own session (its state, version and
// subscriptions). Dispatch through the Parent, not through it, so that
// child folds and the parent's intents stay in one order.
func (p *Parent[S, I, CS, CI]) Session() *Session[S, I] { return p.self }

// State returns the parent's committed state.
func (p *Parent[S, I, CS, CI]) State() S { return p.self.State() }

// At returns a dispatcher that sends intents to the child id through the
// parent, so [Tools] can build tools for one child.
func (p *Parent[S, I, CS, CI]) At(id string) Dispatcher[CI] {
	return childAt[S, I, CS, CI]{p: p, id: id}
}

type childAt[S, I, CS, CI any] struct {
	p  *Parent[S, I, CS, CI]
	id string
}

func (c childAt[S, I, CS, CI]) Dispatch(ctx context.Context, in CI) ([]Event, error) {
	return c.p.DispatchChild(ctx, Child[CI]{ID: c.id, Intent: in})
}
