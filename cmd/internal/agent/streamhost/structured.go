package streamhost

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/indusagi/induscode/conductor"
	"github.com/indusagi/induscode/tool"
)

// StructuredToolName is the tool the model gives its final answer to when
// the app asked for one of a JSON schema (Claude Code's name for it).
const StructuredToolName = "StructuredOutput"

// structuredBrief tells the model how to answer under a schema.
const structuredBrief = "The final answer of each request must be given by calling the " + StructuredToolName +
	" tool once, with the answer as its input; then end your turn with a one-line confirmation."

// structuredRetries is how many times a run that ended without calling
// the tool is told to call it, before the result is an error (Claude
// Code's error_max_structured_output_retries).
const structuredRetries = 2

// errMaxStructuredRetries is the result subtype of a run whose model never
// gave the structured answer.
const errMaxStructuredRetries conductor.Subtype = "error_max_structured_output_retries"

// structuredTool takes the final answer under the app's schema; its input
// schema is that schema, so the deck refuses an answer that does not
// follow it and the model tries again. A schema whose top level is not
// an object is wrapped as the property "value", since tools take objects.
type structuredTool struct {
	spec    tool.Spec
	wrapped bool

	mu    sync.Mutex
	value json.RawMessage // the answer of the running turn; nil when none
}

func newStructuredTool(schema string) (*structuredTool, error) {
	var m map[string]any
	if err := json.Unmarshal([]byte(schema), &m); err != nil {
		return nil, fmt.Errorf("--json-schema: not a JSON object: %v", err)
	}
	delete(m, "$schema")
	t := &structuredTool{}
	if m["type"] != "object" {
		m = map[string]any{"type": "object", "properties": map[string]any{"value": m}, "required": []string{"value"}}
		t.wrapped = true
	}
	raw, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	t.spec = tool.Spec{Name: StructuredToolName, Label: "Structured answer", InputSchema: raw, ReadOnly: true,
		Description: "Give the final answer in the structure the user asked for. Call it once, at the end."}
	return t, nil
}

func (t *structuredTool) Spec() tool.Spec { return tool.CloneSpec(t.spec) }

func (t *structuredTool) Run(_ context.Context, input json.RawMessage, _ *tool.Env) tool.Result {
	v := input
	if t.wrapped {
		var w struct{ Value json.RawMessage }
		if err := json.Unmarshal(input, &w); err != nil || len(w.Value) == 0 {
			return tool.Errorf("give the answer as the property value")
		}
		v = w.Value
	}
	t.mu.Lock()
	t.value = bytes.Clone(v)
	t.mu.Unlock()
	return tool.Text("The structured answer is recorded. End your turn now.")
}

func (t *structuredTool) reset() {
	t.mu.Lock()
	t.value = nil
	t.mu.Unlock()
}

func (t *structuredTool) answer() json.RawMessage {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.value
}

// answerJSON is the structured answer of the running turn, nil when none.
func (t *structuredTool) answerJSON() json.RawMessage {
	if t == nil {
		return nil
	}
	return t.answer()
}

// requireStructured asks the model for the structured answer when its
// run ended without one, and gives up after structuredRetries.
func (h *host) requireStructured(ctx context.Context, res *conductor.Result) *conductor.Result {
	for range structuredRetries {
		if h.structured.answer() != nil {
			return res
		}
		more, err := h.c.Run(ctx, "You ended without calling "+StructuredToolName+". Call it now with your final answer.")
		if err != nil {
			return &conductor.Result{Subtype: conductor.ErrorExecution, IsError: true, Text: err.Error(), Err: err}
		}
		more.Turns += res.Turns
		more.Duration += res.Duration
		more.Usage = more.Usage.Add(res.Usage)
		more.Cost += res.Cost
		res = more
		if res.IsError {
			return res
		}
	}
	if h.structured.answer() != nil {
		return res
	}
	res.Subtype, res.IsError = errMaxStructuredRetries, true
	res.Text = fmt.Sprintf("the model did not give its answer through %s after %d reminders", StructuredToolName, structuredRetries)
	return res
}
