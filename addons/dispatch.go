package addons

import (
	"context"
	"fmt"
	"slices"
)

// Stop says which addon stopped an event, and why.
type Stop struct {
	Addon  ID
	Reason string
}

// Outcome is the result of one dispatch: the payload as the transforms
// left it, and the gate stop that ended the walk, if any.
type Outcome struct {
	Payload Payload
	Stop    *Stop
	// Allowed is the first addon whose gate allowed the event outright
	// (see Decision.Allow); "" when none did, a gate stopped it or one
	// asked.
	Allowed ID
	// Ask is the first gate of a tool:before dispatch that wants the
	// user to confirm the call (see Decision.Ask); it outranks an allow.
	// The host asks, or refuses the call when no one can be asked.
	Ask *Stop
}

// verdict gathers the gates' answers over one dispatch.
type verdict struct {
	allowed ID
	ask     *Stop
}

// Dispatcher runs the handlers of an event in registration order: an
// observer sees a copy of the live payload, a transformer's payload is
// what every later handler (and the caller) sees, and the first gate that
// stops ends the walk. A handler that panics, or a transformer that
// returns another payload type, is reported as a handler fault and
// skipped; a gate that panics does not stop the event.
type Dispatcher struct {
	by     map[Event][]Subscription
	n      int
	report func(*Fault)
}

// NewDispatcher returns a dispatcher over subs in order; report (nil:
// drop) hears handler faults.
func NewDispatcher(subs []Subscription, report func(*Fault)) *Dispatcher {
	d := &Dispatcher{by: make(map[Event][]Subscription), n: len(subs), report: report}
	for _, s := range subs {
		d.by[s.Event] = append(d.by[s.Event], s)
	}
	return d
}

// Len is the number of subscriptions.
func (d *Dispatcher) Len() int {
	if d == nil {
		return 0
	}
	return d.n
}

// Has reports whether any addon subscribed to e.
func (d *Dispatcher) Has(e Event) bool { return d != nil && len(d.by[e]) > 0 }

// HasTool reports whether any addon subscribed to the tool event e for
// calls of the tool named name.
func (d *Dispatcher) HasTool(e Event, name string) bool { return len(d.subsFor(e, name)) > 0 }

// Reserved lists the gate-bearing events, those whose stop the host acts
// on (see [Event.Guards]).
func Reserved() []Event {
	var out []Event
	for _, e := range Events() {
		if e.Guards() {
			out = append(out, e)
		}
	}
	return out
}

// subsFor returns the subscriptions of e that can concern a call of the
// tool named name (all of them when name is "").
func (d *Dispatcher) subsFor(e Event, name string) []Subscription {
	if d == nil {
		return nil
	}
	var out []Subscription
	for _, s := range d.by[e] {
		if s.Tool == "" || name == "" || s.Tool == name {
			out = append(out, s)
		}
	}
	return slices.Clip(out)
}

// Dispatch runs the handlers of e over p. A payload of the wrong type for
// e is reported and returned unchanged, with no handler run.
func (d *Dispatcher) Dispatch(ctx context.Context, e Event, p Payload) Outcome {
	if d == nil {
		return Outcome{Payload: p}
	}
	if !e.Accepts(p) {
		d.fault(&Fault{Kind: HandlerFault, Msg: fmt.Sprintf("event %s was dispatched with a %T payload; no handler ran", e, p)})
		return Outcome{Payload: p}
	}
	var subs []Subscription
	if tp, ok := p.(ToolPayload); ok {
		subs = d.subsFor(e, tp.Name)
	} else {
		subs = d.by[e]
	}
	return d.run(ctx, e, p, subs)
}

func (d *Dispatcher) run(ctx context.Context, e Event, p Payload, subs []Subscription) Outcome {
	var v verdict
	for i := 0; i < len(subs); {
		var stop *Stop
		var done bool
		if i, stop, done = d.runFrom(ctx, e, &p, &v, subs, i); done {
			switch {
			case stop != nil:
				return Outcome{Payload: p, Stop: stop}
			case v.ask != nil:
				return Outcome{Payload: p, Ask: v.ask}
			}
			return Outcome{Payload: p, Allowed: v.allowed}
		}
	}
	return Outcome{Payload: p, Allowed: v.allowed}
}

// runFrom runs the handlers from i on. One deferred recover guards them
// all: a handler that panics is reported and the walk goes on from the
// next one (done false).
func (d *Dispatcher) runFrom(ctx context.Context, e Event, p *Payload, v *verdict, subs []Subscription, i int) (next int, stop *Stop, done bool) {
	defer func() {
		if r := recover(); r != nil {
			s := subs[next]
			d.fault(&Fault{Kind: HandlerFault, Addon: s.Addon,
				Msg: fmt.Sprintf("a %s handler of %s panicked: %v; it was skipped", s.Handler.Kind, e, r)})
			next, stop, done = next+1, nil, false
		}
	}()
	for next = i; next < len(subs); next++ {
		s := &subs[next]
		switch s.Handler.Kind {
		case Observe:
			if s.Handler.observe != nil {
				s.Handler.observe(ctx, (*p).clone())
			}
		case Transform:
			if s.Handler.transform == nil {
				continue
			}
			out := s.Handler.transform(ctx, *p)
			if out == nil || !e.Accepts(out) {
				d.fault(&Fault{Kind: HandlerFault, Addon: s.Addon,
					Msg: fmt.Sprintf("a transform of %s returned a %T payload; it was ignored", e, out)})
				continue
			}
			*p = out
		case Gate:
			if s.Handler.gate == nil {
				continue
			}
			dec := s.Handler.gate(ctx, *p)
			if dec.Stop {
				return next, &Stop{Addon: s.Addon, Reason: dec.Reason}, true
			}
			if dec.Ask {
				if e != ToolBefore {
					// Only a call can wait for the user's word; an ask
					// anywhere else must not pass as a yes.
					return next, &Stop{Addon: s.Addon, Reason: dec.Reason + " (an addon asked for the user's confirmation, which " + e.String() + " cannot ask for)"}, true
				}
				if v.ask == nil {
					v.ask = &Stop{Addon: s.Addon, Reason: dec.Reason}
				}
			}
			if dec.Allow && v.allowed == "" {
				v.allowed = s.Addon
			}
		}
	}
	return next, nil, true
}

func (d *Dispatcher) fault(f *Fault) {
	if d.report != nil {
		d.report(f)
	}
}
