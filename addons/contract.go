package addons

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/indusagi/induscode/tool"
)

// ID names an addon. The manifest's declared id wins; otherwise it is
// derived from where the addon was found (see [DeriveID]).
type ID string

// Event is one point in the life of a session that addons may hook. The
// set is closed: [Events] lists it and every switch over it is exhaustive.
type Event uint8

// The events, with their wire names in the comments.
const (
	SessionStart  Event = iota + 1 // session:start
	SessionEnd                     // session:end
	TurnStart                      // turn:start
	TurnEnd                        // turn:end
	ToolBefore                     // tool:before (gate-bearing)
	ToolAfter                      // tool:after
	ChatParams                     // chat:params
	ChatMessage                    // chat:message
	ShellEnv                       // shell:env
	InputSubmit                    // input:submit (gate-bearing)
	ContextBuild                   // context:build
	CompactBuild                   // compact:build
	CompactBefore                  // compact:before (gate-bearing)
	SubagentStart                  // subagent:start
	SubagentStop                   // subagent:stop

	// eventEnd is one past the last Event: keep it last, so that
	// TestEveryEventNamed, which loops up to it, sees every new one.
	eventEnd
)

// Events returns every event in declaration order; each call returns a new slice.
func Events() []Event {
	return []Event{SessionStart, SessionEnd, TurnStart, TurnEnd, ToolBefore, ToolAfter,
		ChatParams, ChatMessage, ShellEnv, InputSubmit, ContextBuild, CompactBuild, CompactBefore,
		SubagentStart, SubagentStop}
}

// String returns the wire name, such as "tool:before".
func (e Event) String() string {
	switch e {
	case SessionStart:
		return "session:start"
	case SessionEnd:
		return "session:end"
	case TurnStart:
		return "turn:start"
	case TurnEnd:
		return "turn:end"
	case ToolBefore:
		return "tool:before"
	case ToolAfter:
		return "tool:after"
	case ChatParams:
		return "chat:params"
	case ChatMessage:
		return "chat:message"
	case ShellEnv:
		return "shell:env"
	case InputSubmit:
		return "input:submit"
	case ContextBuild:
		return "context:build"
	case CompactBuild:
		return "compact:build"
	case CompactBefore:
		return "compact:before"
	case SubagentStart:
		return "subagent:start"
	case SubagentStop:
		return "subagent:stop"
	}
	return fmt.Sprintf("Event(%d)", uint8(e))
}

// ParseEvent returns the event with this wire name.
func ParseEvent(name string) (Event, error) {
	for _, e := range Events() {
		if e.String() == name {
			return e, nil
		}
	}
	names := make([]string, len(Events()))
	for i, e := range Events() {
		names[i] = e.String()
	}
	return 0, fmt.Errorf("unknown event %q; events are %v", name, names)
}

// MarshalText writes the wire name.
func (e Event) MarshalText() ([]byte, error) {
	if !slices.Contains(Events(), e) {
		return nil, fmt.Errorf("unknown event %d", uint8(e))
	}
	return []byte(e.String()), nil
}

// UnmarshalText reads a wire name.
func (e *Event) UnmarshalText(b []byte) error {
	v, err := ParseEvent(string(b))
	if err != nil {
		return err
	}
	*e = v
	return nil
}

// Guards reports whether a gate's stop on e is one the host acts on: the
// call, the input or the compaction does not happen. This is the one place
// the gate-bearing set is decided.
func (e Event) Guards() bool {
	switch e {
	case ToolBefore, InputSubmit, CompactBefore:
		return true
	}
	return false
}

// Payload is what an event carries. Each event group has its own type
// ([Event.Accepts] says which), so a handler cannot be handed, or return,
// the wrong shape.
type Payload interface {
	// clone returns a deep copy, so an observer cannot change what later
	// handlers see.
	clone() Payload
}

// ToolPayload is the payload of tool:before and tool:after. Result is set
// only for tool:after.
type ToolPayload struct {
	Name   string
	Args   json.RawMessage
	Result *tool.Result
}

// ChatPayload is the payload of chat:params: the model request options.
type ChatPayload struct{ Params json.RawMessage }

// MessagePayload is the payload of chat:message: the assistant message.
type MessagePayload struct{ Message json.RawMessage }

// ShellPayload is the payload of shell:env: the environment a shell
// action will run with, as NAME=value pairs by name.
type ShellPayload struct{ Env map[string]string }

// InputPayload is the payload of input:submit: the user's input.
type InputPayload struct{ Text string }

// ContextPayload is the payload of context:build: the messages of the
// model context.
type ContextPayload struct{ Messages json.RawMessage }

// CompactPayload is the payload of compact:build and compact:before.
type CompactPayload struct{ Reason string }

// LifecyclePayload is the payload of session:*, turn:* and subagent:*
// events. Stopping is set on the turn:end of a turn in which the model
// answered without calling a tool: the agent stops there unless a handler
// sends a message (the send_message handle), which the agent then
// answers. Agent names the subagent profile whose conversation it is
// ("" for the main agent): the turn events of a subagent carry it, and
// subagent:start and subagent:stop fire in the parent's session with the
// subagent's transcript id (AgentID, "" when it keeps none) and file.
type LifecyclePayload struct {
	Session        string
	Stopping       bool
	Agent          string
	AgentID        string
	TranscriptPath string
}

func (p ToolPayload) clone() Payload {
	c := ToolPayload{Name: p.Name, Args: slices.Clone(p.Args)}
	if p.Result != nil {
		r := cloneResult(*p.Result)
		c.Result = &r
	}
	return c
}
func (p ChatPayload) clone() Payload      { return ChatPayload{slices.Clone(p.Params)} }
func (p MessagePayload) clone() Payload   { return MessagePayload{slices.Clone(p.Message)} }
func (p ShellPayload) clone() Payload     { return ShellPayload{maps.Clone(p.Env)} }
func (p InputPayload) clone() Payload     { return p }
func (p ContextPayload) clone() Payload   { return ContextPayload{slices.Clone(p.Messages)} }
func (p CompactPayload) clone() Payload   { return p }
func (p LifecyclePayload) clone() Payload { return p }

func cloneResult(r tool.Result) tool.Result {
	bs := make([]tool.Block, len(r.Blocks))
	for i, b := range r.Blocks {
		b.JSON, b.Data = slices.Clone(b.JSON), slices.Clone(b.Data)
		bs[i] = b
	}
	return tool.Result{Blocks: bs, IsError: r.IsError}
}

// Accepts reports whether p has the payload type of e's group.
func (e Event) Accepts(p Payload) bool {
	switch e {
	case SessionStart, SessionEnd, TurnStart, TurnEnd, SubagentStart, SubagentStop:
		_, ok := p.(LifecyclePayload)
		return ok
	case ToolBefore, ToolAfter:
		_, ok := p.(ToolPayload)
		return ok
	case ChatParams:
		_, ok := p.(ChatPayload)
		return ok
	case ChatMessage:
		_, ok := p.(MessagePayload)
		return ok
	case ShellEnv:
		_, ok := p.(ShellPayload)
		return ok
	case InputSubmit:
		_, ok := p.(InputPayload)
		return ok
	case ContextBuild:
		_, ok := p.(ContextPayload)
		return ok
	case CompactBuild, CompactBefore:
		_, ok := p.(CompactPayload)
		return ok
	}
	return false
}

// Decision is a gate's verdict: Stop refuses what the event announces,
// for Reason. Allow (tool:before) permits the call outright, as a
// PreToolUse hook's "allow" does: a host that would have to ask the user
// runs it without asking. A later gate's stop still refuses it. Ask
// (tool:before) wants the user to confirm the call, for Reason, as a
// PreToolUse hook's "ask" does: it outranks any allow, and a host that
// cannot ask anyone refuses the call (see [WithAsker]).
type Decision struct {
	Stop   bool
	Allow  bool
	Ask    bool
	Reason string
}

// Kind is how a handler takes part in a dispatch.
type Kind uint8

// The handler kinds; the set is closed.
const (
	Observe   Kind = iota + 1 // sees a copy, returns nothing
	Transform                 // returns the payload later handlers see
	Gate                      // returns a Decision; the first stop ends the walk

	// kindEnd is one past the last Kind: keep it last, so that
	// TestKindsAndFaultKindsNamed, which loops up to it, sees every new one.
	kindEnd
)

// Kinds returns every handler kind; each call returns a new slice.
func Kinds() []Kind { return []Kind{Observe, Transform, Gate} }

func (k Kind) String() string {
	switch k {
	case Observe:
		return "observe"
	case Transform:
		return "transform"
	case Gate:
		return "gate"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Handler is one event handler; make it with [Observer], [Transformer] or
// [Gater]. Exactly the function of its Kind is set.
type Handler struct {
	Kind      Kind
	observe   func(context.Context, Payload)
	transform func(context.Context, Payload) Payload
	gate      func(context.Context, Payload) Decision
}

// Observer returns a handler that watches an event.
func Observer(fn func(context.Context, Payload)) Handler { return Handler{Kind: Observe, observe: fn} }

// Transformer returns a handler that replaces the payload.
func Transformer(fn func(context.Context, Payload) Payload) Handler {
	return Handler{Kind: Transform, transform: fn}
}

// Gater returns a handler that may refuse the event.
func Gater(fn func(context.Context, Payload) Decision) Handler { return Handler{Kind: Gate, gate: fn} }

// Subscription is a handler bound to an event, stamped with its addon.
type Subscription struct {
	Addon   ID
	Event   Event
	Handler Handler
	// Tool, when set on a tool:before or tool:after subscription, says the
	// handler concerns only that tool, so calls of other tools skip it
	// without calling it. It is an optimisation hint; the handler must
	// still check the payload.
	Tool string
}

// Match says which tools an interceptor applies to: one by name, or every
// tool when Tool is empty.
type Match struct{ Tool string }

// AnyTool returns the Match of every tool.
func AnyTool() Match { return Match{} }

// Matches reports whether m applies to the tool named name.
func (m Match) Matches(name string) bool { return m.Tool == "" || m.Tool == name }

// EnterContext is what an enter stage sees: the tool, the call and the
// arguments as the earlier stages left them.
type EnterContext struct {
	Tool string
	// CallID tells the calls of a process apart, so an exit stage can
	// match its enter; it is a number, cheap to mint on every call.
	CallID uint64
	Args   json.RawMessage
}

// ExitContext is what an exit stage sees: the arguments the tool ran with
// and the result as the later stages left it.
type ExitContext struct {
	Tool   string
	CallID uint64
	Args   json.RawMessage
	Result tool.Result
}

// Action is what a stage decided.
type Action uint8

// The stage actions.
const (
	Continue Action = iota // leave things as they are
	Rewrite                // replace the arguments (enter) or the result (exit)
	Block                  // refuse the call (enter only)
)

// EnterOutcome is an enter stage's decision; make it with [Proceed],
// [RewriteArgs] or [Refuse]. It is two words so that the common case,
// proceed, costs a stage next to nothing (see BENCHMARKS.md).
type EnterOutcome struct {
	action Action
	more   *enterMore // nil for Proceed
}

type enterMore struct {
	args   json.RawMessage
	reason string
}

// Action is what the stage decided.
func (o EnterOutcome) Action() Action { return o.action }

// Args are the replacement arguments of a Rewrite.
func (o EnterOutcome) Args() json.RawMessage {
	if o.more == nil {
		return nil
	}
	return o.more.args
}

// Reason is why a Block refused the call.
func (o EnterOutcome) Reason() string {
	if o.more == nil {
		return ""
	}
	return o.more.reason
}

// Proceed leaves the arguments as they are.
func Proceed() EnterOutcome { return EnterOutcome{} }

// RewriteArgs replaces the arguments the tool will run with.
func RewriteArgs(args json.RawMessage) EnterOutcome {
	return EnterOutcome{action: Rewrite, more: &enterMore{args: args}}
}

// Refuse blocks the call for reason.
func Refuse(reason string) EnterOutcome {
	return EnterOutcome{action: Block, more: &enterMore{reason: reason}}
}

// ExitOutcome is an exit stage's decision; make it with [Keep] or
// [RewriteResult]. Like EnterOutcome it is small so keeping is cheap.
type ExitOutcome struct {
	result *tool.Result // nil keeps the result
}

// Action is Rewrite when the stage replaced the result, else Continue.
func (o ExitOutcome) Action() Action {
	if o.result != nil {
		return Rewrite
	}
	return Continue
}

// Result is the replacement result of a Rewrite.
func (o ExitOutcome) Result() (tool.Result, bool) {
	if o.result == nil {
		return tool.Result{}, false
	}
	return *o.result, true
}

// Keep leaves the result as it is.
func Keep() ExitOutcome { return ExitOutcome{} }

// RewriteResult replaces the result.
func RewriteResult(r tool.Result) ExitOutcome { return ExitOutcome{result: &r} }

// Interceptor is an enter/exit pair around the calls of the tools Match
// selects. Either stage may be nil.
type Interceptor struct {
	Addon ID
	Match Match
	Enter func(context.Context, EnterContext) EnterOutcome
	Exit  func(context.Context, ExitContext) ExitOutcome
}

// ExecOutcome is what a command run through [Handles.Exec] printed and
// how it ended. Code is -1 when it was stopped (timeout, cancellation).
type ExecOutcome struct {
	Stdout string
	Stderr string
	Code   int
}

// Handles are the controlled channels an addon acts through. Each is
// optional: a host that cannot offer one leaves it nil, and callers check.
type Handles struct {
	// SendMessage injects a message into the active turn.
	SendMessage func(ctx context.Context, text string) error
	// SetModel switches the active model by id.
	SetModel func(ctx context.Context, model string) error
	// SetThinking sets the reasoning effort of later turns.
	SetThinking func(ctx context.Context, level string) error
	// Exec runs a shell command with args as its positional parameters
	// ("$@"): the args are never part of the command text.
	Exec func(ctx context.Context, command string, args []string) (ExecOutcome, error)
}

// CommandContext is what a command runs with: the user's arguments, one
// per element, the working directory and the session's handles.
type CommandContext struct {
	Args    []string
	Dir     string
	Handles *Handles
}

// Command is a command an addon adds; users run it by name (no leading
// slash), the model never does.
type Command struct {
	Name    string
	Summary string
	Addon   ID
	Run     func(ctx context.Context, cc CommandContext) (ExecOutcome, error)
}

// GateInfo describes a declarative gate for listings; the handler that
// enforces it is an ordinary gate subscription.
type GateInfo struct {
	Addon  ID     `json:"addon"`
	Event  Event  `json:"event"`
	Tool   string `json:"matchTool,omitempty"`
	Reason string `json:"reason"`
}

// API is the surface an addon registers on. Each call records a
// contribution; nothing runs until the host folds them.
type API interface {
	// ID is the addon being registered.
	ID() ID
	// On subscribes h to event.
	On(event Event, h Handler)
	// OnTool subscribes h to a tool event for one tool only.
	OnTool(event Event, toolName string, h Handler)
	// InterceptTool adds an enter/exit pair around the tools m selects.
	InterceptTool(m Match, enter func(context.Context, EnterContext) EnterOutcome, exit func(context.Context, ExitContext) ExitOutcome)
	// AddCommand adds a command.
	AddCommand(name, summary string, run func(context.Context, CommandContext) (ExecOutcome, error))
	// AddTool adds a tool to the session.
	AddTool(t tool.Tool)
	// Handles are the session's handles (never nil; fields may be).
	Handles() *Handles
	// Manifest returns what has been recorded so far.
	Manifest() Manifest
}

// Manifest is what one addon recorded.
type Manifest struct {
	Subscriptions []Subscription
	Interceptors  []Interceptor
	Commands      []Command
	Tools         []tool.Tool
	Gates         []GateInfo
}

// Addon is what a loader produces: the declared id (empty: use the
// derived one), a version and the register function the host calls once
// with a fresh surface.
type Addon struct {
	ID       ID
	Version  string
	Register func(API) error
}
