package conductor

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/indusagi/induscode/addons"
	"github.com/indusagi/induscode/conductor/toolrun"
	"github.com/indusagi/induscode/deck/cards"
	"github.com/indusagi/induscode/deck/checkpoint"
	"github.com/indusagi/induscode/provider"
	"github.com/indusagi/induscode/provider/facts"
	"github.com/indusagi/induscode/tool"
	"github.com/indusagi/induscode/transcript"
)

// Subtype is how a run ended, in Claude Code's words for its result.
type Subtype string

// The ways a run ends.
const (
	Success        Subtype = "success"
	ErrorMaxTurns  Subtype = "error_max_turns"
	ErrorExecution Subtype = "error_during_execution"
	// Refused: an input:submit gate refused the prompt.
	Refused Subtype = "error_input_refused"
	// Cancelled: the context ended (Ctrl-C, a timeout).
	Cancelled Subtype = "error_cancelled"
)

// Result is the end of one Run.
type Result struct {
	Subtype  Subtype
	IsError  bool
	Text     string // the final answer, or what went wrong
	Turns    int
	Duration time.Duration
	// Usage and Cost are the run's, summed over its model calls.
	Usage provider.Usage
	Cost  float64
	// APIDuration is the time spent waiting on model calls; Models their
	// usage by the model that answered; Stop the last answer's stop
	// reason ("" when no call was answered).
	APIDuration time.Duration
	Models      []ModelUse
	Stop        provider.StopReason
	// Denials are the tool calls the run refused, in order.
	Denials []Denial
	// Node is the checkpoint node of everything the run's tools changed.
	Node string
	// Subagents counts the subagents the run's task calls ran; their
	// usage and cost are not in Usage and Cost.
	Subagents SubagentStats
	Err       error
}

// Run takes one user prompt to its answer. The error is for the machine
// (a transcript that cannot be written, or [ErrBusy] when another Run or
// a Compact is going); a model failure, a refused input or a
// cancellation is a Result with IsError.
func (c *Conductor) Run(ctx context.Context, prompt string) (*Result, error) {
	if err := c.acquire("run"); err != nil {
		return nil, err
	}
	defer c.release()
	start := time.Now()
	res := &Result{Node: checkpoint.NewNode()}
	if node, ok := checkpoint.NodeFrom(ctx); ok && node != "" {
		res.Node = node // a child's changes are part of its parent's prompt
	}
	done := func(sub Subtype, text string, err error) (*Result, error) {
		res.Subtype, res.Text, res.Err = sub, text, err
		if c.subagents != nil {
			res.Subagents = c.subagents.take()
		}
		res.IsError = sub != Success
		res.Duration = time.Since(start)
		return res, nil
	}
	out := c.dispatch(ctx, addons.InputSubmit, addons.InputPayload{Text: prompt})
	if out.Stop != nil {
		msg := fmt.Sprintf("The input was refused by addon %s: %s", out.Stop.Addon, out.Stop.Reason)
		c.emit(Notice{Text: msg})
		return done(Refused, msg, nil)
	}
	if ip, ok := out.Payload.(addons.InputPayload); ok {
		prompt = ip.Text
	}
	// "/id args" and "$id" mentions of skills become their instructions;
	// the gates above saw the prompt as typed.
	prompt = c.expand(prompt)
	ctx = checkpoint.WithNode(ctx, res.Node)
	// After tool results (a run that was stopped mid-loop) the prompt joins
	// their message: the APIs want roles to alternate.
	c.messages = appendJoined(c.messages, provider.UserText(prompt))
	unsaved := []provider.Message{provider.UserText(prompt)}
	for {
		if err := ctx.Err(); err != nil {
			c.save(unsaved, nil)
			return done(Cancelled, fmt.Sprintf("cancelled: %v", context.Cause(ctx)), context.Cause(ctx))
		}
		if c.opts.MaxTurns > 0 && res.Turns >= c.opts.MaxTurns {
			c.save(unsaved, nil)
			// The turn refused counts, as Claude Code counts it: with a
			// bound of 1, a run whose model called a tool reports 2.
			res.Turns++
			return done(ErrorMaxTurns, fmt.Sprintf("Reached maximum number of turns (%d)", c.opts.MaxTurns), nil)
		}
		if c.nearWindow(ctx) {
			err := c.compact(ctx, "the conversation is near the model's context window")
			var te *transcriptError
			switch {
			case err == nil:
				unsaved = nil // the summary and the prompt it kept were written
			case errors.Is(err, errNothingToCompact):
			case ctx.Err() != nil:
				continue // reported as a cancellation above
			case errors.As(err, &te):
				return nil, err
			default:
				c.emit(Notice{Text: "compaction failed: " + err.Error()})
			}
		}
		res.Turns++
		final, err := c.turn(ctx, res, &unsaved)
		c.publish() // a turn boundary: what Messages shows meanwhile
		if err != nil {
			if ctx.Err() != nil {
				continue
			}
			var te *transcriptError
			if errors.As(err, &te) {
				return nil, err
			}
			c.save(unsaved, nil)
			return done(ErrorExecution, err.Error(), err)
		}
		if final != nil {
			return done(Success, final.Text(), nil)
		}
	}
}

// turn is one model call and its tool calls. It returns the final
// message when the model called no tool.
func (c *Conductor) turn(ctx context.Context, res *Result, unsaved *[]provider.Message) (*provider.Message, error) {
	n := res.Turns
	c.dispatch(ctx, addons.TurnStart, addons.LifecyclePayload{Session: c.SessionID(), Agent: c.agentName()})
	c.emit(TurnStarted{N: n})
	c.takePending(unsaved)
	began := time.Now()
	req, model, resp, err := c.call(ctx, unsaved)
	if err != nil {
		res.APIDuration += time.Since(began)
		return nil, err
	}
	res.noteCall(model, c.window(), req.MaxTokens, resp, time.Since(began))
	res.Usage, res.Cost = res.Usage.Add(resp.Usage), res.Cost+resp.Cost
	c.usage, c.cost = c.usage.Add(resp.Usage), c.cost+resp.Cost
	c.messages = append(c.messages, resp.Message)
	c.lastSize, c.sizedAt, c.compactWait = resp.Usage.PromptTokens()+resp.Usage.OutputTokens, len(c.messages), false
	*unsaved = append(*unsaved, resp.Message)
	sz := &sized{msg: len(*unsaved) - 1, usage: resp.Usage, cost: resp.Cost}
	if c.has(addons.ChatMessage) {
		if raw, err := json.Marshal(resp.Message); err == nil {
			c.dispatch(ctx, addons.ChatMessage, addons.MessagePayload{Message: raw})
		}
	}
	c.emit(AssistantMessage{Message: resp.Message, Usage: resp.Usage, Cost: resp.Cost, Model: cmp.Or(resp.Model, model.Name),
		Requested: model.String(), ID: resp.ID, Stop: resp.Stop})
	uses := resp.Message.ToolUses()
	if len(uses) > 0 {
		c.mu.Lock()
		c.asks = newAskOrder(uses)
		c.mu.Unlock()
		results := toolrun.Run(ctx, permitted{c}, uses, toolrun.Options{Check: c.check, Together: c.runsTogether})
		c.afterTools(ctx, uses, results)
		c.noteChanges(uses, results)
		res.noteDenials(uses, results)
		c.noteSkillUses(uses, results)
		tm := provider.Message{Role: provider.User, Blocks: results}
		c.messages = append(c.messages, tm)
		*unsaved = append(*unsaved, tm)
		c.emit(ToolResults{Message: tm})
	}
	if err := c.save(*unsaved, sz); err != nil {
		return nil, err
	}
	*unsaved = nil
	answered := len(uses) == 0 && resp.Stop != provider.StopMaxTokens && resp.Stop != provider.StopPauseTurn
	c.dispatch(ctx, addons.TurnEnd, addons.LifecyclePayload{Session: c.SessionID(), Stopping: answered, Agent: c.agentName()})
	c.emit(TurnEnded{N: n})
	switch {
	case len(uses) > 0:
		return nil, nil
	case resp.Stop == provider.StopPauseTurn:
		// The server paused a long turn: the paused message, sent back
		// as the last one, lets the model carry on where it stopped.
		return nil, nil
	case resp.Stop == provider.StopMaxTokens:
		return nil, fmt.Errorf("the answer was cut off at the output limit (%d tokens)", req.MaxTokens)
	case c.hasPending():
		// A message came while the agent was stopping (a Stop hook's
		// reason, an addon's send_message): it answers that too.
		return nil, nil
	}
	return &resp.Message, nil
}

// call makes the turn's model call. A call the provider refuses as over
// the context window compacts the conversation once and is made again.
func (c *Conductor) call(ctx context.Context, unsaved *[]provider.Message) (provider.Request, provider.ModelID, *provider.Response, error) {
	req, client, model, err := c.request(ctx)
	if err != nil {
		return req, model, nil, err
	}
	onDelta := func(d provider.Delta) { c.emit(Delta{d}) }
	resp, err := client.Stream(ctx, req, onDelta)
	if err == nil || !overflowed(err) || ctx.Err() != nil {
		return req, model, resp, err
	}
	c.compactWait = false // the provider's word beats the estimate
	switch cerr := c.compact(ctx, "the model refused the conversation as longer than its context window"); {
	case errors.Is(cerr, errNothingToCompact):
		return req, model, nil, err
	case cerr != nil:
		var te *transcriptError
		if errors.As(cerr, &te) {
			return req, model, nil, cerr
		}
		return req, model, nil, fmt.Errorf("%w (compacting the conversation failed: %v)", err, cerr)
	}
	*unsaved = nil // the summary and the message it kept were written
	c.emit(Notice{Text: "the conversation was compacted after the model refused it as too long; the call is made again"})
	if req, client, model, err = c.request(ctx); err != nil {
		return req, model, nil, err
	}
	resp, err = client.Stream(ctx, req, onDelta)
	return req, model, resp, err
}

func (c *Conductor) hasPending() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.pending) > 0
}

// takePending adds the texts of send_message to the conversation.
func (c *Conductor) takePending(unsaved *[]provider.Message) {
	c.mu.Lock()
	texts := c.pending
	c.pending = nil
	c.mu.Unlock()
	if len(texts) == 0 {
		return
	}
	var blocks []provider.Block
	for _, t := range texts {
		blocks = append(blocks, provider.Block{Kind: provider.TextBlock, Text: t})
	}
	last := len(c.messages) - 1
	if last >= 0 && c.messages[last].Role == provider.User {
		c.messages[last].Blocks = append(c.messages[last].Blocks, blocks...)
		if u := len(*unsaved) - 1; u >= 0 && (*unsaved)[u].Role == provider.User {
			(*unsaved)[u] = c.messages[last]
		}
		return
	}
	m := provider.Message{Role: provider.User, Blocks: blocks}
	c.messages = append(c.messages, m)
	*unsaved = append(*unsaved, m)
}

// chatParams is the chat:params payload: the model options an addon may
// change for this call.
type chatParams struct {
	Model       string            `json:"model"`
	MaxTokens   int64             `json:"max_tokens"`
	Thinking    provider.Thinking `json:"thinking"`
	Temperature *float64          `json:"temperature,omitempty"`
}

// request builds the call: context:build may rewrite the messages,
// chat:params the options (a changed model is opened for this call).
func (c *Conductor) request(ctx context.Context) (provider.Request, provider.Client, provider.ModelID, error) {
	c.mu.Lock()
	client, model, thinking, stale := c.client, c.model, c.thinking, c.briefStale
	c.briefStale = false
	c.mu.Unlock()
	if stale {
		c.brief, _ = c.compose()
	}
	msgs := c.messages
	if c.has(addons.ContextBuild) {
		raw, err := json.Marshal(msgs)
		if err != nil {
			return provider.Request{}, nil, model, err
		}
		out := c.dispatch(ctx, addons.ContextBuild, addons.ContextPayload{Messages: raw})
		if cp, ok := out.Payload.(addons.ContextPayload); ok && string(cp.Messages) != string(raw) {
			var changed []provider.Message
			if err := json.Unmarshal(cp.Messages, &changed); err != nil {
				c.emit(Notice{Text: fmt.Sprintf("context:build returned messages that do not decode (%v); the conversation was sent unchanged", err)})
			} else {
				msgs = changed
			}
		}
	}
	p := chatParams{Model: model.String(), MaxTokens: c.opts.MaxTokens, Thinking: thinking}
	if p.MaxTokens == 0 {
		p.MaxTokens = provider.DefaultMaxTokens
		// A model whose answers are shorter than that refuses the
		// request (Claude 3.5 Haiku's 8192): ask for what it can give.
		if known, ok := c.opts.Catalog.Lookup(model); ok && known.MaxOutput > 0 {
			p.MaxTokens = min(p.MaxTokens, known.MaxOutput)
		}
	}
	if c.has(addons.ChatParams) {
		raw, _ := json.Marshal(p)
		out := c.dispatch(ctx, addons.ChatParams, addons.ChatPayload{Params: raw})
		if cp, ok := out.Payload.(addons.ChatPayload); ok {
			// Decoded over the current options: a transform that returns
			// only what it changes ({"model": ...}) keeps the rest.
			changed := p
			if err := json.Unmarshal(cp.Params, &changed); err != nil {
				c.emit(Notice{Text: fmt.Sprintf("chat:params returned options that do not decode (%v); they were not used", err)})
			} else {
				if changed.Model != "" && changed.Model != p.Model {
					cl, m, err := c.openModel(changed.Model)
					if err != nil {
						return provider.Request{}, nil, model, fmt.Errorf("chat:params chose model %q: %w", changed.Model, err)
					}
					client, model = cl, m
				}
				p = changed
			}
		}
	}
	req := provider.Request{Model: model.Name, System: c.brief, Messages: msgs, Tools: c.Tools(),
		MaxTokens: p.MaxTokens, Thinking: p.Thinking, Temperature: p.Temperature}
	return req, client, model, nil
}

// openModel opens another model through the same opener; with an
// injected client, a model of the same provider shares it.
func (c *Conductor) openModel(id string) (provider.Client, provider.ModelID, error) {
	if c.opts.Client != nil {
		m, err := provider.ParseModelID(id)
		return c.opts.Client, m, err
	}
	return c.open(id)
}

// open opens a model through the opener the program passed in.
func (c *Conductor) open(id string) (provider.Client, provider.ModelID, error) {
	if c.opts.Open == nil {
		return nil, provider.ModelID{}, errors.New("no way to open a model: the conductor was given no opener")
	}
	return c.opts.Open(id)
}

// check is asked before each known tool runs: a deny rule or plan mode
// refuses the call here; the permission a call needs is for [permitted].
func (c *Conductor) check(call toolrun.Call) string {
	if why := c.outsideDeck(call.Use.Name); why != "" {
		return why
	}
	perm, planning := c.permState()
	refuse, _ := perm.refusal(call.Use.Name, c.needsNoPermission(call.Use.Name, call.Tool), call.Use.Input, planning)
	return refuse
}

// gated reports whether tool:before gates see the calls of the tool.
func (c *Conductor) gated(name string) bool {
	b := c.sess.Addons()
	return b != nil && b.Dispatch.HasTool(addons.ToolBefore, name)
}

// permitted runs calls through the session's Box. A call that needs
// permission runs when a tool:before gate allows it outright (a
// PreToolUse hook's allow), else when the user, if one can be asked
// (Options.Ask), allows it; otherwise it is refused. A gate that asks
// (a PreToolUse hook's ask) puts any call to the user the same way.
type permitted struct{ c *Conductor }

func (p permitted) Lookup(name string) (tool.Tool, bool) { return p.c.sess.Box().Lookup(name) }

func (p permitted) Run(ctx context.Context, name string, input json.RawMessage) tool.Result {
	box := p.c.sess.Box()
	p.c.mu.Lock()
	order := p.c.asks
	p.c.mu.Unlock()
	turn := order.claim(name, input)
	if turn >= 0 {
		defer order.pass(turn)
	}
	// ask puts a question of this call to the user, after those of the
	// calls before it; an answer that edits the call leaves its input in
	// edited.
	var edited json.RawMessage
	ask := func(ctx context.Context, why string) string {
		if turn >= 0 {
			if err := order.wait(ctx, turn); err != nil {
				return "The call was cancelled before the user could be asked: " + err.Error()
			}
			defer order.pass(turn)
		}
		refuse, in := p.c.ask(ctx, Question{Tool: name, Input: input, Why: why, ToolUseID: order.id(turn)})
		edited = in
		return refuse
	}
	if p.c.opts.Ask != nil {
		// A gate that asks for the user's confirmation (a PreToolUse
		// hook's ask) reaches the user, whatever the mode would decide.
		ctx = addons.WithAsker(ctx, ask)
	}
	t, ok := box.Lookup(name)
	if !ok {
		return box.Run(ctx, name, input)
	}
	perm, planning := p.c.permState()
	_, why := perm.refusal(name, p.c.needsNoPermission(name, t), input, planning)
	if why == "" {
		return box.Run(ctx, name, input)
	}
	decide := func(ctx context.Context) string { return ask(ctx, why) }
	if p.c.gated(name) {
		// The gates speak first: a hook's deny refuses, its allow runs
		// the call without asking.
		return box.Run(addons.NeedPermission(ctx, decide), name, input)
	}
	if refuse := decide(ctx); refuse != "" {
		return addons.PermissionRefusal(name, refuse)
	}
	if edited != nil {
		input = edited
	}
	return box.Run(ctx, name, input)
}

// ask puts q to the user, when one can be asked: the refusal, or ""
// and the input the user gave the call (nil: the model's).
// Questions go one at a time, whichever goroutine asks.
func (c *Conductor) ask(ctx context.Context, q Question) (refuse string, input json.RawMessage) {
	if c.opts.Ask == nil {
		return q.Why, nil
	}
	c.askMu.Lock()
	a := c.opts.Ask(ctx, q)
	c.askMu.Unlock()
	switch {
	case a.Allow:
		return "", a.Input
	case a.Reason != "":
		return "The user refused the call: " + a.Reason, nil
	}
	return "The user refused the call of " + q.Tool + "; do not retry it unchanged.", nil
}

// afterTools follows plan mode: a successful enter_plan_mode starts it;
// a successful exit_plan_mode saves the plan and ends it when the plan is
// approved: by the permission mode (acceptEdits, bypassPermissions) or by
// the user, when one can be asked (see approvePlan).
func (c *Conductor) afterTools(ctx context.Context, uses, results []provider.Block) {
	for i, u := range uses {
		r := &results[i]
		if r.IsError {
			if strings.HasPrefix(r.Text, addons.PermissionRefused) {
				r.Failure = toolrun.Refused
			}
			continue
		}
		switch u.Name {
		case "enter_plan_mode":
			c.setPlanning(true)
		case "exit_plan_mode":
			var in struct{ Plan string }
			json.Unmarshal(u.Input, &in)
			path, err := cards.WritePlan(c.sess.Dir(), in.Plan)
			if err != nil {
				r.Text += "\nThe plan could not be saved: " + err.Error()
			} else {
				c.emit(Notice{Text: "plan saved to " + path})
			}
			r.Text = c.approvePlan(ctx, u.Input, path)
		}
	}
}

// transcriptError is a transcript that could not be written.
type transcriptError struct{ err error }

func (e *transcriptError) Error() string { return e.err.Error() }
func (e *transcriptError) Unwrap() error { return e.err }

// sized is the usage of the model call that made msgs[msg] of a save,
// for its transcript line.
type sized struct {
	msg   int
	usage provider.Usage
	cost  float64
}

// save appends msgs to the transcript as one fsynced write. The model's
// message carries its call's usage and cost, so a resumed conversation
// knows its size.
func (c *Conductor) save(msgs []provider.Message, sz *sized) error {
	if c.tr == nil || len(msgs) == 0 {
		return nil
	}
	lines := make([]transcript.Line, len(msgs))
	model := c.Model().String()
	for i := range msgs {
		lines[i] = transcript.Line{Kind: transcript.MessageLine, Message: &msgs[i], Model: model}
		if sz != nil && sz.msg == i {
			u := sz.usage
			lines[i].Usage, lines[i].Cost = &u, sz.cost
		}
	}
	if err := c.tr.Append(lines...); err != nil {
		return &transcriptError{err}
	}
	return nil
}

// Windows assumed of a model that neither the catalog (provider/facts),
// the settings nor its server know. A local server (Ollama, LM Studio)
// loads models with 4k to 8k of context unless told otherwise and cuts a
// longer prompt silently, so the larger figure is the most that is safe
// to assume there; a cloud provider's unlisted model is most likely a new
// one, and 128k is the least of today's cloud models' windows.
const (
	unknownLocalWindow = 8192
	unknownCloudWindow = 128_000
)

// contextWindowOf is m's window as the catalog (with the user's
// overrides) knows it, else the assumption above.
func contextWindowOf(cat *facts.Catalog, m provider.ModelID) int64 {
	if known, ok := cat.Lookup(m); ok && known.ContextWindow > 0 {
		return known.ContextWindow
	}
	if local(m) {
		return unknownLocalWindow
	}
	return unknownCloudWindow
}

func local(m provider.ModelID) bool { return m.Provider == "ollama" || m.Provider == "lmstudio" }
