// Package toolrun runs the tool uses of a model's message through a deck:
// deck tool specs become the model's tool definitions ([Defs]), one
// message's tool uses run (read-only ones together, writes in order) and
// each result becomes the tool_result block answering its use
// ([ResultBlock]), with a typed [provider.Failure] saying why a call
// failed. It is the conductor's, and any program running its own loop
// over a deck may use it; it knows no model SDK.
package toolrun

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/indusagi/induscode/provider"
	"github.com/indusagi/induscode/tool"
)

// Defs turns deck tool specs into tool definitions for a
// [provider.Request].
func Defs(specs []tool.Spec) []provider.ToolDef {
	out := make([]provider.ToolDef, len(specs))
	for i, s := range specs {
		schema := s.InputSchema
		if len(schema) == 0 {
			schema = tool.EmptyObjectSchema()
		}
		out[i] = provider.ToolDef{Name: s.Name, Description: s.Description, InputSchema: schema}
	}
	return out
}

// The failure kinds of a tool_result block; the set is closed.
const (
	NoFailure    provider.Failure = ""
	UnknownTool  provider.Failure = "unknown_tool"  // no tool by that name in the deck
	InvalidInput provider.Failure = "invalid_input" // input not a JSON object, or not what the schema asks
	Refused      provider.Failure = "refused"       // a gate, a hook, the permission mode or plan mode said no
	Cancelled    provider.Failure = "cancelled"     // the turn was cancelled or timed out during the call
	Failed       provider.Failure = "failed"        // the tool ran and reported an error
)

// Failures returns every failure kind of a failed call; each call returns
// a new slice.
func Failures() []provider.Failure {
	return []provider.Failure{UnknownTool, InvalidInput, Refused, Cancelled, Failed}
}

// ResultBlock turns a tool result into the tool_result block answering
// the tool_use use. The model reads text: text blocks are joined; a JSON
// block is sent only when the result has no text, since our tools that
// return both put the same facts in each (edit's diff) and the model
// would read them twice; images and resources are named. An empty
// result says so rather than being sent empty. The first JSON block is
// kept as the block's Structured, for a program that shows the call.
func ResultBlock(use provider.Block, r tool.Result, failure provider.Failure) provider.Block {
	var parts []string
	var structured json.RawMessage
	hasText := false
	for _, b := range r.Blocks {
		if b.Kind == tool.KindText && b.Text != "" {
			hasText = true
		}
	}
	for _, b := range r.Blocks {
		switch b.Kind {
		case tool.KindText:
			if b.Text != "" {
				parts = append(parts, b.Text)
			}
		case tool.KindJSON:
			if !hasText {
				parts = append(parts, string(b.JSON))
			}
			if structured == nil {
				structured = b.JSON
			}
		case tool.KindImage:
			parts = append(parts, "[image "+b.MIME+"]")
		case tool.KindResource:
			if b.Text != "" {
				parts = append(parts, b.Text)
			} else {
				parts = append(parts, "[resource "+b.URI+"]")
			}
		}
	}
	text := strings.Join(parts, "\n")
	if text == "" {
		if r.IsError {
			text = "(the tool failed without saying why)"
		} else {
			text = "(no output)"
		}
	}
	if r.IsError && failure == NoFailure {
		failure = Failed
	}
	if !r.IsError {
		failure = NoFailure
	}
	return provider.Block{Kind: provider.ToolResultBlock, ToolUseID: use.ID, Text: text, IsError: r.IsError, Failure: failure,
		Structured: structured}
}

// Runner is what runs tool calls: a session's or a deck's Box.
type Runner interface {
	Run(ctx context.Context, name string, input json.RawMessage) tool.Result
	Lookup(name string) (tool.Tool, bool)
}

// Call is one tool use as [Run] hands it to a check: the use and the
// tool it names (nil when unknown).
type Call struct {
	Use  provider.Block
	Tool tool.Tool
}

// Options tune [Run]. The zero value runs every call.
type Options struct {
	// Check, when set, is asked before each known tool runs; a non-empty
	// reason refuses the call with that text (Failure Refused).
	Check func(Call) (refuse string)
	// Serial runs every call one after another.
	Serial bool
	// Together, when set, names calls that run beside the read-only
	// ones though their tool may write: the task card run in process,
	// whose subagent checks each of its own calls.
	Together func(Call) bool
}

// useKey carries the id of the tool use a call answers.
type useKey struct{}

// UseID is the id of the model's tool use whose call runs under ctx
// (the tool_use block's id), or "" outside [Run].
func UseID(ctx context.Context) string {
	id, _ := ctx.Value(useKey{}).(string)
	return id
}

// Run runs the tool uses of one assistant message through run and
// returns one tool_result block per use, in the uses' order. Read-only
// tools next to each other (and those Options.Together names) run
// together; a tool that may write waits for every call before it and
// holds back the ones after, so writes happen in the order the model
// asked for them. Each call's context carries its use's id ([UseID]).
func Run(ctx context.Context, run Runner, uses []provider.Block, o Options) []provider.Block {
	out := make([]provider.Block, len(uses))
	var wg sync.WaitGroup
	for i, use := range uses {
		t, known := run.Lookup(use.Name)
		if !known || o.Serial || !t.Spec().ReadOnly && (o.Together == nil || !o.Together(Call{Use: use, Tool: t})) {
			wg.Wait()
			out[i] = runOne(ctx, run, use, t, known, o)
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = runOne(ctx, run, use, t, true, o)
		}()
	}
	wg.Wait()
	return out
}

func runOne(ctx context.Context, run Runner, use provider.Block, t tool.Tool, known bool, o Options) provider.Block {
	if !known {
		return ResultBlock(use, run.Run(ctx, use.Name, use.Input), UnknownTool)
	}
	input := use.Input
	if len(input) == 0 {
		input = json.RawMessage(`{}`)
	}
	if text, broken := use.BrokenInput(); broken {
		return ResultBlock(use, tool.Errorf("invalid input for %s: the arguments of this call are not complete JSON (cut off at the output limit, or malformed), so it was not run: %s. "+
			"Call it again with the whole arguments as a JSON object; split a very long content into smaller calls.", use.Name, quote(text, 200)), InvalidInput)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(input, &obj); err != nil || obj == nil {
		return ResultBlock(use, tool.Errorf("invalid input for %s: the input must be a JSON object, got %.200s", use.Name, input), InvalidInput)
	}
	if o.Check != nil {
		if why := o.Check(Call{Use: use, Tool: t}); why != "" {
			return ResultBlock(use, tool.Errorf("%s", why), Refused)
		}
	}
	r := run.Run(context.WithValue(ctx, useKey{}, use.ID), use.Name, input)
	return ResultBlock(use, r, classify(ctx, r))
}

// quote shows the start of text, at most n bytes, and how much was left.
func quote(text string, n int) string {
	if len(text) <= n {
		return fmt.Sprintf("%q", text)
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(text[cut]) {
		cut--
	}
	return fmt.Sprintf("%q (and %d bytes more)", text[:cut], len(text)-cut)
}

// classify tells why a failed result failed. The runner's own refusals
// and the deck's texts are ours, so their openings are stable: tool.New's
// validation says "invalid input for", the addons boundary "addon … blocked
// the call" (kept true by this package's tests).
func classify(ctx context.Context, r tool.Result) provider.Failure {
	if !r.IsError {
		return NoFailure
	}
	if ctx.Err() != nil {
		return Cancelled
	}
	text := r.PlainText()
	switch {
	case strings.HasPrefix(text, "invalid input for "):
		return InvalidInput
	case strings.HasPrefix(text, "addon ") && strings.Contains(text, " blocked the call of "):
		return Refused
	}
	return Failed
}
