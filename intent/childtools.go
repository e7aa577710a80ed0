package intent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/indusagi/induscode/tool"
)

// ChildDispatcher is a parent as child tools see it: it routes an intent
// to the child the call names. [*Parent] is one.
type ChildDispatcher[CI any] interface {
	DispatchChild(ctx context.Context, c Child[CI]) ([]Event, error)
}

// ChildTools returns one tool per visible variant of a child's intent
// set, each taking one more required string property, idField, that names
// the child (described to the model by idDescription). A call removes that
// property, parses the rest as the variant and dispatches it to the named
// child through p, which warms the child on first use. It fails when a
// variant already has a property named idField.
func ChildTools[CI any](set *Set[CI], p ChildDispatcher[CI], idField, idDescription string) ([]tool.Tool, error) {
	if idField == "" {
		return nil, errors.New("intent: child tools need the name of the property that names the child")
	}
	var out []tool.Tool
	var errs []error
	for _, v := range set.variants {
		if v.meta.Hidden {
			continue
		}
		sp := v.spec()
		schema, err := withIDProperty(sp.InputSchema, idField, idDescription)
		if err != nil {
			errs = append(errs, fmt.Errorf("intent %s: %w", sp.Name, err))
			continue
		}
		sp.InputSchema = schema
		out = append(out, &childTool[CI]{set: set, p: p, field: idField, spec: sp})
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}

// withIDProperty adds a required string property to an object schema.
func withIDProperty(raw json.RawMessage, field, desc string) (json.RawMessage, error) {
	var s map[string]any
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	props, _ := s["properties"].(map[string]any)
	if props == nil {
		props = make(map[string]any)
	}
	if _, taken := props[field]; taken {
		return nil, fmt.Errorf("it already has a property %q; name the child by another property", field)
	}
	prop := map[string]any{"type": "string", "minLength": 1}
	if desc != "" {
		prop["description"] = desc
	}
	props[field] = prop
	s["properties"] = props
	req, _ := s["required"].([]any)
	s["required"] = append([]any{field}, req...)
	return json.Marshal(s)
}

type childTool[CI any] struct {
	set   *Set[CI]
	p     ChildDispatcher[CI]
	field string
	spec  tool.Spec
}

var _ tool.Tool = (*childTool[struct{}])(nil)

func (t *childTool[CI]) Spec() tool.Spec { return tool.CloneSpec(t.spec) }

func (t *childTool[CI]) Run(ctx context.Context, input json.RawMessage, _ *tool.Env) tool.Result {
	id, rest, err := splitID(input, t.field)
	if err != nil {
		return tool.Errorf("%v", &ArgumentError{Intent: t.spec.Name, Err: err})
	}
	in, err := t.set.Parse(t.spec.Name, rest)
	if err != nil {
		return tool.Errorf("%v", err)
	}
	events, err := t.p.DispatchChild(ctx, Child[CI]{ID: id, Intent: in})
	if err != nil {
		return tool.Errorf("%s was not applied: %v", t.spec.Name, err)
	}
	return ResultOf(events)
}

// splitID takes the child's ID out of a call's arguments and returns the
// rest for the variant to parse.
func splitID(input json.RawMessage, field string) (string, json.RawMessage, error) {
	var args map[string]json.RawMessage
	if err := json.Unmarshal(input, &args); err != nil || args == nil {
		return "", nil, fmt.Errorf("input must be a JSON object with a string %q", field)
	}
	raw, ok := args[field]
	if !ok {
		return "", nil, fmt.Errorf("field %s: missing; say which one to change", field)
	}
	var id string
	if err := json.Unmarshal(raw, &id); err != nil || id == "" {
		return "", nil, fmt.Errorf("field %s: want a non-empty string, got %s", field, raw)
	}
	delete(args, field)
	rest, err := json.Marshal(args)
	if err != nil {
		return "", nil, fmt.Errorf("re-encoding the arguments: %v", err)
	}
	return id, rest, nil
}
