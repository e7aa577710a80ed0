package rpc

import (
	"encoding/json"
	"fmt"
	"maps"
	"strings"

	"github.com/indusagi/induscode/addons"
	"github.com/indusagi/induscode/tool"
)

// ProtocolVersion is the version of the addon protocol this host speaks.
// An addon that answers initialize with another is refused with a load
// fault naming both.
const ProtocolVersion = "1"

// The methods of the protocol (docs/addon-protocol.md has an example
// exchange for each).
const (
	MethodInitialize  = "initialize"      // host -> addon, request
	MethodInitialized = "initialized"     // host -> addon, notification
	MethodObserve     = "event/observe"   // host -> addon, notification
	MethodTransform   = "event/transform" // host -> addon, request
	MethodGate        = "event/gate"      // host -> addon, request
	MethodToolEnter   = "tool/enter"      // host -> addon, request
	MethodToolExit    = "tool/exit"       // host -> addon, request
	MethodCommandRun  = "command/run"     // host -> addon, request
	MethodToolCall    = "tool/call"       // host -> addon, request
	MethodCancel      = "$/cancelRequest" // host -> addon, notification
	MethodPing        = "ping"            // host -> addon, request
	MethodShutdown    = "shutdown"        // host -> addon, request
)

// Limits tell the addon what it runs under.
type Limits struct {
	TimeoutMS int64    `json:"timeoutMs"`
	Env       []string `json:"env"`
}

// InitializeParams open the conversation.
type InitializeParams struct {
	ProtocolVersion string    `json:"protocolVersion"`
	Addon           addons.ID `json:"addon"`
	Workspace       string    `json:"workspace"`
	Limits          Limits    `json:"limits"`
}

// Declarations are what an addon contributes, as it answers initialize.
type Declarations struct {
	ProtocolVersion string            `json:"protocolVersion"`
	Handlers        []HandlerDecl     `json:"handlers,omitempty"`
	Interceptors    []InterceptorDecl `json:"interceptors,omitempty"`
	Commands        []CommandDecl     `json:"commands,omitempty"`
	Tools           []ToolDecl        `json:"tools,omitempty"`
}

// HandlerDecl is an event handler. Tool narrows a tool:before or
// tool:after handler to one tool. OnError is a gate's answer when it
// fails: "deny" (default) or "allow"; the manifest may override it.
type HandlerDecl struct {
	ID      string `json:"id"`
	Event   string `json:"event"`
	Kind    string `json:"kind"`
	Tool    string `json:"tool,omitempty"`
	OnError string `json:"onError,omitempty"`
}

// InterceptorDecl is an enter/exit pair around the calls of Tool (every
// tool when empty). OnError is what a failing enter stage decides:
// "allow" (default: the call proceeds) or "deny".
type InterceptorDecl struct {
	ID      string `json:"id"`
	Tool    string `json:"tool,omitempty"`
	Enter   bool   `json:"enter"`
	Exit    bool   `json:"exit"`
	OnError string `json:"onError,omitempty"`
}

// CommandDecl is a command users run by name.
type CommandDecl struct {
	Name    string `json:"name"`
	Summary string `json:"summary,omitempty"`
}

// ToolDecl is a tool the addon adds to the session.
type ToolDecl struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"inputSchema,omitempty"`
	ReadOnly    bool            `json:"readOnly,omitempty"`
}

// EventParams are the params of event/observe, event/transform and
// event/gate.
type EventParams struct {
	Handler string          `json:"handler"`
	Event   string          `json:"event"`
	Payload json.RawMessage `json:"payload"`
}

// TransformResult answers event/transform.
type TransformResult struct {
	Payload json.RawMessage `json:"payload"`
}

// GateResult answers event/gate.
type GateResult struct {
	Stop   bool   `json:"stop"`
	Reason string `json:"reason,omitempty"`
}

// EnterParams are the params of tool/enter.
type EnterParams struct {
	Interceptor string          `json:"interceptor"`
	Tool        string          `json:"tool"`
	CallID      uint64          `json:"callId"`
	Args        json.RawMessage `json:"args"`
}

// EnterResult answers tool/enter: action "continue", "rewrite" (Args) or
// "block" (Reason).
type EnterResult struct {
	Action string          `json:"action"`
	Args   json.RawMessage `json:"args,omitempty"`
	Reason string          `json:"reason,omitempty"`
}

// ExitParams are the params of tool/exit.
type ExitParams struct {
	Interceptor string          `json:"interceptor"`
	Tool        string          `json:"tool"`
	CallID      uint64          `json:"callId"`
	Args        json.RawMessage `json:"args"`
	Result      tool.Result     `json:"result"`
}

// ExitResult answers tool/exit: action "continue" or "rewrite" (Result).
type ExitResult struct {
	Action string       `json:"action"`
	Result *tool.Result `json:"result,omitempty"`
}

// CommandParams are the params of command/run.
type CommandParams struct {
	Command string   `json:"command"`
	Args    []string `json:"args"`
	Dir     string   `json:"dir"`
}

// CommandResult answers command/run.
type CommandResult struct {
	Stdout string `json:"stdout,omitempty"`
	Stderr string `json:"stderr,omitempty"`
	Code   int    `json:"code"`
}

// ToolCallParams are the params of tool/call; the answer is a tool
// result, {"content": [...], "isError": bool}.
type ToolCallParams struct {
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments"`
}

// CancelParams are the params of $/cancelRequest.
type CancelParams struct {
	ID int64 `json:"id"`
}

// check validates what an addon declared: every name, event and kind is
// one the host knows, and ids are unique, so a mistake is a load fault
// naming the declaration rather than a handler that never fires.
func (d *Declarations) check() error {
	if d.ProtocolVersion != ProtocolVersion {
		return fmt.Errorf("the addon speaks protocol version %q and this host speaks %q; update the addon or indusr so they match", d.ProtocolVersion, ProtocolVersion)
	}
	ids := map[string]bool{}
	for i, h := range d.Handlers {
		where := fmt.Sprintf("handlers[%d]", i)
		if strings.TrimSpace(h.ID) == "" || ids[h.ID] {
			return fmt.Errorf("%s: id %q must be set and unique among handlers and interceptors", where, h.ID)
		}
		ids[h.ID] = true
		e, err := addons.ParseEvent(h.Event)
		if err != nil {
			return fmt.Errorf("%s (%s): %v", where, h.ID, err)
		}
		if _, err := parseKind(h.Kind); err != nil {
			return fmt.Errorf("%s (%s): %v", where, h.ID, err)
		}
		if h.Tool != "" && e != addons.ToolBefore && e != addons.ToolAfter {
			return fmt.Errorf("%s (%s): tool is only for tool:before and tool:after, not %s", where, h.ID, h.Event)
		}
		if h.OnError != "" && h.OnError != "allow" && h.OnError != "deny" {
			return fmt.Errorf("%s (%s): onError %q must be \"allow\" or \"deny\"", where, h.ID, h.OnError)
		}
	}
	for i, ic := range d.Interceptors {
		where := fmt.Sprintf("interceptors[%d]", i)
		if strings.TrimSpace(ic.ID) == "" || ids[ic.ID] {
			return fmt.Errorf("%s: id %q must be set and unique among handlers and interceptors", where, ic.ID)
		}
		ids[ic.ID] = true
		if !ic.Enter && !ic.Exit {
			return fmt.Errorf("%s (%s): set enter, exit or both", where, ic.ID)
		}
		if ic.OnError != "" && ic.OnError != "allow" && ic.OnError != "deny" {
			return fmt.Errorf("%s (%s): onError %q must be \"allow\" or \"deny\"", where, ic.ID, ic.OnError)
		}
	}
	names := map[string]bool{}
	for i, c := range d.Commands {
		if strings.TrimSpace(c.Name) == "" || strings.ContainsAny(c.Name, "/ \t\r\n") || names[c.Name] {
			return fmt.Errorf("commands[%d]: name %q must be one unique word without a slash", i, c.Name)
		}
		names[c.Name] = true
	}
	names = map[string]bool{}
	for i, t := range d.Tools {
		if err := tool.CheckName(t.Name); err != nil {
			return fmt.Errorf("tools[%d]: %v", i, err)
		}
		if names[t.Name] {
			return fmt.Errorf("tools[%d]: tool %q is declared twice", i, t.Name)
		}
		names[t.Name] = true
		if len(t.InputSchema) > 0 {
			var s struct {
				Type string `json:"type"`
			}
			if json.Unmarshal(t.InputSchema, &s) != nil || s.Type != "object" {
				return fmt.Errorf("tools[%d] (%s): inputSchema must be a JSON Schema object with \"type\": \"object\"", i, t.Name)
			}
		}
	}
	return nil
}

func parseKind(s string) (addons.Kind, error) {
	for _, k := range addons.Kinds() {
		if k.String() == s {
			return k, nil
		}
	}
	return 0, fmt.Errorf("kind %q must be one of observe, transform, gate", s)
}

// The payloads on the wire, one shape per event group.
type (
	wireTool struct {
		Tool   string          `json:"tool"`
		Args   json.RawMessage `json:"args"`
		Result *tool.Result    `json:"result,omitempty"`
	}
	wireLifecycle struct {
		Session        string `json:"session"`
		Stopping       bool   `json:"stopping,omitempty"`
		Agent          string `json:"agent,omitempty"`
		AgentID        string `json:"agentId,omitempty"`
		TranscriptPath string `json:"transcriptPath,omitempty"`
	}
	wireChat struct {
		Params json.RawMessage `json:"params"`
	}
	wireMessage struct {
		Message json.RawMessage `json:"message"`
	}
	wireShell struct {
		Env map[string]string `json:"env"`
	}
	wireInput struct {
		Text string `json:"text"`
	}
	wireContext struct {
		Messages json.RawMessage `json:"messages"`
	}
	wireCompact struct {
		Reason string `json:"reason"`
	}
)

// nullable turns absent JSON into null, so a payload field is never
// missing on the wire.
func nullable(b json.RawMessage) json.RawMessage {
	if len(b) == 0 {
		return json.RawMessage("null")
	}
	return b
}

// encodePayload writes p in its wire shape.
func encodePayload(p addons.Payload) (json.RawMessage, error) {
	var v any
	switch p := p.(type) {
	case addons.ToolPayload:
		args := p.Args
		if len(args) == 0 {
			args = json.RawMessage("{}")
		}
		v = wireTool{Tool: p.Name, Args: args, Result: p.Result}
	case addons.LifecyclePayload:
		v = wireLifecycle{Session: p.Session, Stopping: p.Stopping, Agent: p.Agent, AgentID: p.AgentID, TranscriptPath: p.TranscriptPath}
	case addons.ChatPayload:
		v = wireChat{Params: nullable(p.Params)}
	case addons.MessagePayload:
		v = wireMessage{Message: nullable(p.Message)}
	case addons.ShellPayload:
		env := p.Env
		if env == nil {
			env = map[string]string{}
		}
		v = wireShell{Env: env}
	case addons.InputPayload:
		v = wireInput{Text: p.Text}
	case addons.ContextPayload:
		v = wireContext{Messages: nullable(p.Messages)}
	case addons.CompactPayload:
		v = wireCompact{Reason: p.Reason}
	default:
		return nil, fmt.Errorf("no wire shape for a %T payload", p)
	}
	return json.Marshal(v)
}

// decodePayload reads a payload of e's group, as a transform returned it.
func decodePayload(e addons.Event, raw json.RawMessage) (addons.Payload, error) {
	bad := func(err error) (addons.Payload, error) {
		return nil, fmt.Errorf("the %s payload it returned does not fit: %v", e, err)
	}
	switch e {
	case addons.ToolBefore, addons.ToolAfter:
		var w wireTool
		if err := json.Unmarshal(raw, &w); err != nil {
			return bad(err)
		}
		if !isObject(w.Args) {
			return bad(fmt.Errorf("args must be a JSON object"))
		}
		return addons.ToolPayload{Name: w.Tool, Args: w.Args, Result: w.Result}, nil
	case addons.SessionStart, addons.SessionEnd, addons.TurnStart, addons.TurnEnd, addons.SubagentStart, addons.SubagentStop:
		var w wireLifecycle
		if err := json.Unmarshal(raw, &w); err != nil {
			return bad(err)
		}
		return addons.LifecyclePayload{Session: w.Session, Stopping: w.Stopping, Agent: w.Agent, AgentID: w.AgentID, TranscriptPath: w.TranscriptPath}, nil
	case addons.ChatParams:
		var w wireChat
		if err := json.Unmarshal(raw, &w); err != nil {
			return bad(err)
		}
		return addons.ChatPayload{Params: w.Params}, nil
	case addons.ChatMessage:
		var w wireMessage
		if err := json.Unmarshal(raw, &w); err != nil {
			return bad(err)
		}
		return addons.MessagePayload{Message: w.Message}, nil
	case addons.ShellEnv:
		var w wireShell
		if err := json.Unmarshal(raw, &w); err != nil {
			return bad(err)
		}
		return addons.ShellPayload{Env: maps.Clone(w.Env)}, nil
	case addons.InputSubmit:
		var w wireInput
		if err := json.Unmarshal(raw, &w); err != nil {
			return bad(err)
		}
		return addons.InputPayload{Text: w.Text}, nil
	case addons.ContextBuild:
		var w wireContext
		if err := json.Unmarshal(raw, &w); err != nil {
			return bad(err)
		}
		return addons.ContextPayload{Messages: w.Messages}, nil
	case addons.CompactBuild, addons.CompactBefore:
		var w wireCompact
		if err := json.Unmarshal(raw, &w); err != nil {
			return bad(err)
		}
		return addons.CompactPayload{Reason: w.Reason}, nil
	}
	return nil, fmt.Errorf("unknown event %v", e)
}

// isObject reports whether b is a JSON object.
func isObject(b json.RawMessage) bool {
	var m map[string]json.RawMessage
	return json.Unmarshal(b, &m) == nil && m != nil
}
