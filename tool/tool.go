package tool

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
)

// Tool is one callable capability. Implementations must be safe for
// concurrent use: a session may run several calls of one tool at once.
type Tool interface {
	// Spec describes the tool to the model and to hosts. It must be cheap
	// and return the same value on every call. The caller owns the
	// returned schema bytes: a tool shared by many decks returns copies
	// ([CloneSpec]), so that no caller can change what another sees.
	Spec() Spec
	// Run executes one call. input is the model-supplied JSON object (never
	// nil: an absent input arrives as {}). Failures are reported in the
	// Result, not by panicking; a panic is still recovered by the runner.
	Run(ctx context.Context, input json.RawMessage, env *Env) Result
}

// Cancellable is the optional interface of a tool that returns at once when
// the context of its call ends. A deck runs such a tool on the caller's
// goroutine; any other runs on a goroutine of its own, so that its call
// returns when the context ends whatever the tool does.
type Cancellable interface {
	Tool
	Cancellable() bool
}

// Spec is what a tool tells the world about itself.
type Spec struct {
	// Name is the wire name the model calls ("read", "srv__echo").
	Name string
	// Label is the short human title ("Read file").
	Label string
	// Description is the model-facing explanation of what the tool does
	// and how to call it well.
	Description string
	// InputSchema is a JSON Schema (draft 2020-12) whose top-level type is
	// "object".
	InputSchema json.RawMessage
	// ReadOnly tools never change the workspace; permission gates may
	// always allow them.
	ReadOnly bool
	// OutputSchema is optional: a JSON Schema whose top-level type is
	// "object", describing the JSON object a successful result carries as
	// its JSON block (MCP's outputSchema and structuredContent). Most
	// tools have none; a grafted MCP tool has the one its server declares.
	OutputSchema json.RawMessage
}

// NameRule is the tool-name limit shared by the OpenAI, Anthropic and
// Gemini function-calling APIs, as a regular expression.
const NameRule = `^[a-zA-Z0-9_-]{1,64}$`

// ValidName reports whether name is acceptable to every major model API:
// 1 to 64 of a-z, A-Z, 0-9, '_' and '-' (see [NameRule]).
func ValidName(name string) bool {
	if len(name) == 0 || len(name) > 64 {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// CheckName returns nil when name is valid (see [ValidName]) and otherwise
// an error that names it and states the rule, so whoever chose the name
// can fix it: a model API refuses the whole request, not just the tool,
// when one name breaks the rule.
func CheckName(name string) error {
	if ValidName(name) {
		return nil
	}
	return fmt.Errorf("invalid tool name %q (%d bytes): a name is 1 to 64 characters, each a-z, A-Z, 0-9, '_' or '-' (%s)", name, len(name), NameRule)
}

// EmptyObjectSchema returns the schema of a tool that takes no input. It is
// a function, not a variable, so that no caller can change it for others:
// each call returns fresh bytes.
func EmptyObjectSchema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`)
}

// Func adapts a plain function to a Tool. It is the untyped counterpart of
// [New], for tools that parse their own input (grafted MCP tools, wrappers).
type Func struct {
	S  Spec
	Fn func(ctx context.Context, input json.RawMessage, env *Env) Result
}

var _ Tool = (*Func)(nil)

// Spec returns f.S with a copy of its InputSchema, so a caller that
// changes the schema it was given does not change f.
func (f *Func) Spec() Spec { return f.S.clone() }

// NameOf returns t.Spec().Name without copying the spec, and without
// building an inferred schema, when t can say its name directly: tools
// built by [New] and [Func] can, and so can a wrapper that runs another
// tool under its name and says which (an Unwrap() Tool method, as the
// deck's checkpoints and guards have). Deck building and grafting look
// names up often.
func NameOf(t Tool) string {
	for {
		switch v := t.(type) {
		case namer:
			return v.toolName()
		case interface{ Unwrap() Tool }:
			t = v.Unwrap()
			continue
		}
		return t.Spec().Name
	}
}

// namer is how this package's tools give their name without a copy.
type namer interface{ toolName() string }

func (f *Func) toolName() string { return f.S.Name }

// clone returns s with its own copies of the schema bytes (nil stays
// nil). It is the one way a Spec leaves its owner.
func (s Spec) clone() Spec { return CloneSpec(s) }

// CloneSpec returns s with its own copies of InputSchema and
// OutputSchema, so that whoever receives it can change them without
// changing s. Hosts that keep specs and hand them out use it.
func CloneSpec(s Spec) Spec {
	s.InputSchema = bytes.Clone(s.InputSchema)
	s.OutputSchema = bytes.Clone(s.OutputSchema)
	return s
}

// Run calls f.Fn.
func (f *Func) Run(ctx context.Context, input json.RawMessage, env *Env) Result {
	return f.Fn(ctx, input, env)
}
