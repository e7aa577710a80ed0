package addons

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/indusagi/induscode/tool"
)

// Blocked says which addon refused a call, and why.
type Blocked struct {
	Addon  ID
	Reason string
}

// CallResult is the outcome of one call through the chain: the result,
// or the refusal when an enter stage blocked it (then the tool never ran).
type CallResult struct {
	Result  tool.Result
	Blocked *Blocked
	// Args are the arguments the tool ran with, after every rewrite.
	Args json.RawMessage
}

// Chain folds interceptor stages around one tool execution: the enter
// stages of the matching interceptors run in load order, each seeing the
// arguments the previous one left (continue, rewrite, or block, which
// ends the walk and skips the tool); the tool runs exactly once; then the
// exit stages run in reverse order, each seeing the result the later one
// left. A stage that panics is reported as a handler fault and counts as
// continue.
type Chain struct {
	stages []Interceptor
	report func(*Fault)
}

// NewChain returns a chain over stages in load order; report (nil: drop)
// hears handler faults.
func NewChain(stages []Interceptor, report func(*Fault)) *Chain {
	return &Chain{stages: slices.Clone(stages), report: report}
}

// Len is the number of interceptors.
func (c *Chain) Len() int {
	if c == nil {
		return 0
	}
	return len(c.stages)
}

// Interceptors returns the chain's interceptors in load order.
func (c *Chain) Interceptors() []Interceptor {
	if c == nil {
		return nil
	}
	return slices.Clone(c.stages)
}

// Matches reports whether any interceptor applies to the tool.
func (c *Chain) Matches(name string) bool {
	if c == nil {
		return false
	}
	for _, s := range c.stages {
		if s.Match.Matches(name) {
			return true
		}
	}
	return false
}

// For returns the chain of the interceptors that apply to the tool, so a
// wrapper can pick its stages once rather than on every call.
func (c *Chain) For(name string) *Chain {
	if c == nil {
		return &Chain{}
	}
	out := &Chain{report: c.report}
	for _, s := range c.stages {
		if s.Match.Matches(name) {
			out.stages = append(out.stages, s)
		}
	}
	return out
}

// Run threads ec through the matching stages around exec.
func (c *Chain) Run(ctx context.Context, ec EnterContext, exec func(context.Context, json.RawMessage) tool.Result) CallResult {
	var stages []Interceptor
	if c != nil {
		for _, s := range c.stages {
			if s.Match.Matches(ec.Tool) {
				stages = append(stages, s)
			}
		}
	}
	return c.run(ctx, ec, stages, exec)
}

// run is Run over stages already matched to ec.Tool.
func (c *Chain) run(ctx context.Context, ec EnterContext, stages []Interceptor, exec func(context.Context, json.RawMessage) tool.Result) CallResult {
	for i := 0; i < len(stages); {
		var b *Blocked
		var done bool
		if i, b, done = c.enterFrom(ctx, &ec, stages, i); done {
			if b != nil {
				return CallResult{Blocked: b}
			}
			break
		}
	}
	xc := ExitContext{Tool: ec.Tool, CallID: ec.CallID, Args: ec.Args, Result: exec(ctx, ec.Args)}
	for i := len(stages) - 1; i >= 0; {
		i = c.exitFrom(ctx, &xc, stages, i)
	}
	return CallResult{Result: xc.Result, Args: xc.Args}
}

// enterFrom runs the enter stages from i on. One deferred recover guards
// them all, which keeps a call through many stages cheap: a stage that
// panics is reported and the walk goes on from the next one (done false).
func (c *Chain) enterFrom(ctx context.Context, ec *EnterContext, stages []Interceptor, i int) (next int, blocked *Blocked, done bool) {
	defer func() {
		if r := recover(); r != nil {
			c.fault(stages[next].Addon, "enter", r)
			next, blocked, done = next+1, nil, false
		}
	}()
	for next = i; next < len(stages); next++ {
		s := &stages[next]
		if s.Enter == nil {
			continue
		}
		switch out := s.Enter(ctx, *ec); out.action {
		case Rewrite:
			ec.Args = out.Args()
		case Block:
			return next, &Blocked{Addon: s.Addon, Reason: out.Reason()}, true
		}
	}
	return next, nil, true
}

// exitFrom runs the exit stages from i down to 0 and returns -1, or the
// index to go on from after a stage panicked.
func (c *Chain) exitFrom(ctx context.Context, xc *ExitContext, stages []Interceptor, i int) (next int) {
	defer func() {
		if r := recover(); r != nil {
			c.fault(stages[next].Addon, "exit", r)
			next--
		}
	}()
	for next = i; next >= 0; next-- {
		s := &stages[next]
		if s.Exit == nil {
			continue
		}
		if out := s.Exit(ctx, *xc); out.result != nil {
			xc.Result = *out.result
		}
	}
	return next
}

func (c *Chain) fault(addon ID, stage string, r any) {
	if c != nil && c.report != nil {
		c.report(&Fault{Kind: HandlerFault, Addon: addon,
			Msg: fmt.Sprintf("the %s stage of an interceptor panicked: %v; it was skipped", stage, r)})
	}
}
