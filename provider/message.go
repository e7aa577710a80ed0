package provider

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Role says who wrote a message.
type Role string

// The roles. A tool_result block travels in a user message, as both APIs
// expect of the conversation's shape.
const (
	User      Role = "user"
	Assistant Role = "assistant"
)

// BlockKind is the kind of a content block; the set is closed.
type BlockKind string

// The block kinds.
const (
	TextBlock     BlockKind = "text"
	ThinkingBlock BlockKind = "thinking"
	// RedactedThinkingBlock is thinking the provider encrypted (Anthropic's
	// safety systems flagged it): opaque Data, shown to no one, sent back
	// as it came.
	RedactedThinkingBlock BlockKind = "redacted_thinking"
	ToolUseBlock          BlockKind = "tool_use"
	ToolResultBlock       BlockKind = "tool_result"
)

// BlockKinds returns every block kind; each call returns a new slice.
func BlockKinds() []BlockKind {
	return []BlockKind{TextBlock, ThinkingBlock, RedactedThinkingBlock, ToolUseBlock, ToolResultBlock}
}

// Block is one piece of a message. Which fields are set depends on Kind:
// Text for text, thinking (the reasoning) and tool_result (the content);
// ID, Name and Input for tool_use; ToolUseID, IsError and Failure for
// tool_result; Signature for thinking (Anthropic's proof that the
// thinking is the model's, needed to send it back); Data for redacted
// thinking.
//
// Each provider's opaque reasoning state rides in fields whose shape
// tells it apart, so that one provider's is never sent to another:
// OpenAI's reasoning item is a thinking block with the item's ID ("rs_…")
// and its encrypted content in Data (no Signature); Gemini's thought
// signature is the Signature of the text or tool_use block it came with
// (the only kinds where Signature means that).
//
// Input is a JSON object, except for arguments that arrived broken (cut
// off at the output limit, or not JSON, as small local models send
// them): those are kept as a JSON string holding the text as it came, so
// the message still encodes; [Block.BrokenInput] tells them apart.
//
// Structured, on a tool_result, is the tool's own JSON account of the
// call (edit's diff, say) when it gave one beside its text. It is for
// whoever shows the run; it is neither sent to a model nor saved.
type Block struct {
	Kind      BlockKind       `json:"type"`
	Text      string          `json:"text,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	IsError   bool            `json:"is_error,omitempty"`
	Failure   Failure         `json:"failure,omitempty"`
	Signature string          `json:"signature,omitempty"`
	Data      string          `json:"data,omitempty"`

	Structured json.RawMessage `json:"-"`
}

// BrokenInput returns the text of a tool_use's arguments that arrived
// as no JSON object (see [Block]), and whether they did.
func (b Block) BrokenInput() (string, bool) {
	if len(b.Input) == 0 || b.Input[0] != '"' {
		return "", false
	}
	var s string
	if json.Unmarshal(b.Input, &s) != nil {
		return "", false
	}
	return s, true
}

// ToolInput returns arguments as a tool_use's Input: the JSON itself
// when it is an object, {} when empty, else the text kept as a JSON
// string (see [Block]).
func ToolInput(args []byte) json.RawMessage {
	trimmed := bytes.TrimSpace(args)
	switch {
	case len(trimmed) == 0:
		return json.RawMessage(`{}`)
	case trimmed[0] == '{' && json.Valid(trimmed):
		return json.RawMessage(trimmed)
	case trimmed[0] == '"':
		// Some servers encode the arguments twice: a string holding the
		// object.
		var inner string
		if json.Unmarshal(trimmed, &inner) == nil {
			if in := bytes.TrimSpace([]byte(inner)); len(in) > 0 && in[0] == '{' && json.Valid(in) {
				return json.RawMessage(in)
			}
		}
	}
	b, _ := json.Marshal(string(args))
	return b
}

// Failure is why a tool call failed, beside the text the model reads,
// kept with its tool_result block. Whoever runs the tools names the kinds
// (the conductor's toolrun package); the empty value is a call that did
// not fail.
type Failure string

// Message is one turn of the conversation.
type Message struct {
	Role   Role    `json:"role"`
	Blocks []Block `json:"content"`
}

// UserText returns a user message of one text block.
func UserText(text string) Message {
	return Message{Role: User, Blocks: []Block{{Kind: TextBlock, Text: text}}}
}

// Text returns the text blocks of m joined, without thinking.
func (m Message) Text() string {
	var s string
	for _, b := range m.Blocks {
		if b.Kind == TextBlock {
			s += b.Text
		}
	}
	return s
}

// ToolUses returns the tool_use blocks of m in order.
func (m Message) ToolUses() []Block {
	var out []Block
	for _, b := range m.Blocks {
		if b.Kind == ToolUseBlock {
			out = append(out, b)
		}
	}
	return out
}

// ToolDef is a tool as the model sees it.
type ToolDef struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"input_schema"`
}

// Thinking asks for reasoning before the answer. Budget is a budget of
// thinking tokens: Anthropic's budget_tokens and Gemini's
// thinkingBudget; Effort ("low", "medium", "high") is OpenAI's reasoning
// effort. Zero values ask for nothing: Anthropic's models then do not
// think, OpenAI's and Gemini's reasoning models think as they do by
// default.
type Thinking struct {
	Budget int64  `json:"budget,omitempty"`
	Effort string `json:"effort,omitempty"`
}

// ThinkingLevel maps a level name ("off", "low", "medium", "high") to
// every API's settings: the thinking budget grows by a factor of four per
// level from Anthropic's minimum of 1024 tokens (within what Gemini's
// thinking models take, 128 to 24576 or more), and the effort is the
// level's name.
func ThinkingLevel(level string) (Thinking, error) {
	switch level {
	case "", "off", "none":
		return Thinking{}, nil
	case "low", "minimal":
		return Thinking{Budget: 1024, Effort: "low"}, nil
	case "medium":
		return Thinking{Budget: 4096, Effort: "medium"}, nil
	case "high", "max":
		return Thinking{Budget: 16384, Effort: "high"}, nil
	}
	return Thinking{}, fmt.Errorf("unknown thinking level %q; use off, low, medium or high", level)
}

// Request is one model call.
type Request struct {
	// Model is the model's name at its provider ("claude-sonnet-4-5").
	Model    string    `json:"model"`
	System   string    `json:"system,omitempty"`
	Messages []Message `json:"messages"`
	Tools    []ToolDef `json:"tools,omitempty"`
	// MaxTokens bounds the answer; zero means DefaultMaxTokens.
	MaxTokens   int64    `json:"max_tokens,omitempty"`
	Thinking    Thinking `json:"thinking,omitzero"`
	Temperature *float64 `json:"temperature,omitempty"`
}

// DefaultMaxTokens is the answer bound of a request that sets none: room
// for a long file edit, and within every current model's output limit.
const DefaultMaxTokens = 16384

// StopReason is why the model stopped.
type StopReason string

// The stop reasons, in Anthropic's words; OpenAI's finish reasons map
// onto them (stop → end_turn, tool_calls → tool_use, length → max_tokens).
const (
	StopEndTurn   StopReason = "end_turn"
	StopToolUse   StopReason = "tool_use"
	StopMaxTokens StopReason = "max_tokens"
	StopSequence  StopReason = "stop_sequence"
	StopRefusal   StopReason = "refusal"
	// StopPauseTurn is a turn the server paused (a long run of its own
	// tools): the message goes back as it is and the model carries on.
	StopPauseTurn StopReason = "pause_turn"
	StopOther     StopReason = "other"
)

// Usage counts a call's tokens. InputTokens excludes the cached ones, as
// Anthropic counts: the prompt was InputTokens + CacheRead + CacheWrite.
type Usage struct {
	InputTokens      int64 `json:"input_tokens"`
	OutputTokens     int64 `json:"output_tokens"`
	CacheReadTokens  int64 `json:"cache_read_input_tokens"`
	CacheWriteTokens int64 `json:"cache_creation_input_tokens"`
}

// Add returns u plus v.
func (u Usage) Add(v Usage) Usage {
	return Usage{u.InputTokens + v.InputTokens, u.OutputTokens + v.OutputTokens,
		u.CacheReadTokens + v.CacheReadTokens, u.CacheWriteTokens + v.CacheWriteTokens}
}

// PromptTokens is the size of the prompt the call sent, cached or not.
func (u Usage) PromptTokens() int64 { return u.InputTokens + u.CacheReadTokens + u.CacheWriteTokens }

// Response is one finished model call.
type Response struct {
	Message Message    `json:"message"`
	Stop    StopReason `json:"stop_reason"`
	Usage   Usage      `json:"usage"`
	// Model is the model that answered, as the server named it.
	Model string `json:"model"`
	// ID is the server's id of the message ("msg_…", "chatcmpl-…"); ""
	// when it sent none.
	ID string `json:"id,omitempty"`
	// Cost is the call's price in US dollars at the model's list price
	// (see [WithRetries]); zero for a model without a known price.
	Cost float64 `json:"cost_usd"`
	// Retries is how many failed attempts came before this one.
	Retries int `json:"retries,omitempty"`
}

// DeltaKind is the kind of a streamed piece.
type DeltaKind uint8

// The delta kinds.
const (
	TextDelta     DeltaKind = iota + 1 // Text is more answer text
	ThinkingDelta                      // Text is more reasoning
	ToolUseStart                       // Name is a tool the model is calling
)

// Delta is a piece of the response as it streams, for a caller that shows
// it live; the Response is the whole truth.
type Delta struct {
	Kind  DeltaKind
	Index int // the block it belongs to
	Text  string
	Name  string
}
