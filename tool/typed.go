package tool

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
)

// New builds a Tool from a typed handler. When spec.InputSchema is empty the
// schema is inferred from In (see [Schema]), adjusted by a [WithSchema]
// option if given; otherwise spec.InputSchema is used as given (and must
// not be changed afterwards) and must be an object schema. spec.Name must
// satisfy [ValidName] ([CheckName] gives the error). Every call's input is
// validated against the schema before the handler runs; invalid input is an
// IsError result that names the offending field and shows what was expected,
// so the model can correct its call.
//
// An inferred schema is built when the tool is first described or called,
// not by New: a process that provisions every tool to call one (a one-shot
// command) would otherwise pay for the inference of all of them. New still
// refuses an input type that is not a struct; should inference fail later
// (a field type JSON Schema cannot describe, a WithSchema edit that
// panics), the tool's schema refuses every input, says why in its
// description, and every call is an error naming the fault.
func New[In any](spec Spec, run func(ctx context.Context, in In, env *Env) Result, opts ...Option) (Tool, error) {
	if err := CheckName(spec.Name); err != nil {
		return nil, err
	}
	var b build
	for _, o := range opts {
		o(&b)
	}
	t := &typed[In]{spec: spec, run: run}
	if len(spec.InputSchema) == 0 {
		if len(b.edits) > 1 {
			return nil, fmt.Errorf("tool %q: more than one WithSchema option: put every adjustment in one", spec.Name)
		}
		if k := structKind(reflect.TypeFor[In]()); k != reflect.Struct {
			return nil, fmt.Errorf("tool %q: tool input must be a struct (schema type object), got a %s", spec.Name, k)
		}
		var e *schemaEdit
		if len(b.edits) == 1 {
			e = b.edits[0]
		}
		t.infer = func() (json.RawMessage, error) { return inferSchema[In](e) }
	} else {
		raw, err := wireSchema[In](spec.InputSchema, b.edits)
		if err != nil {
			return nil, fmt.Errorf("tool %q: %w", spec.Name, err)
		}
		t.spec.InputSchema = raw
	}
	// The schema is kept, not copied (tools are built for every session,
	// and inferred schemas are cached per process); nothing changes it.
	// Nobody else can: Spec hands out copies.
	if b.changes != nil {
		return &changer[In]{typed: t, paths: b.changes}, nil
	}
	return t, nil
}

// structKind is the kind of t, or of what t points to.
func structKind(t reflect.Type) reflect.Kind {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Kind()
}

// wireSchema returns the schema a tool shows: explicit (checked to be an
// object schema) or inferred from In and adjusted by at most one edit.
func wireSchema[In any](explicit json.RawMessage, edits []*schemaEdit) (json.RawMessage, error) {
	if len(edits) > 1 {
		return nil, errors.New("more than one WithSchema option: put every adjustment in one")
	}
	if len(explicit) == 0 {
		var e *schemaEdit
		if len(edits) == 1 {
			e = edits[0]
		}
		return inferSchema[In](e)
	}
	if len(edits) > 0 {
		return nil, errors.New("WithSchema adjusts the inferred schema, but Spec.InputSchema is set too: use one or the other")
	}
	if _, ok := checkedSchemas.Load(string(explicit)); ok {
		return explicit, nil
	}
	var head struct {
		Type any `json:"type"`
	}
	if err := json.Unmarshal(explicit, &head); err != nil {
		return nil, fmt.Errorf("input schema: %w", err)
	}
	if head.Type != "object" {
		return nil, errors.New(`input schema must have "type":"object"`)
	}
	checkedSchemas.Store(string(explicit), true)
	return explicit, nil
}

// checkedSchemas remembers explicit schemas already found to be object
// schemas: tools are built for every session, and scanning a large schema
// again each time would dominate provisioning.
var checkedSchemas sync.Map // string -> true

// resolvedSchemas caches validators by schema text. Parsing and resolving
// a schema costs a few hundred microseconds and is not needed to list
// tools, so it happens on a tool's first call, once per process; a
// resolved schema is only read while validating, so sharing it is safe.
var resolvedSchemas sync.Map // string -> *jsonschema.Resolved

func resolve(raw json.RawMessage) (*jsonschema.Resolved, error) {
	if r, ok := resolvedSchemas.Load(string(raw)); ok {
		return r.(*jsonschema.Resolved), nil
	}
	s := new(jsonschema.Schema)
	if err := json.Unmarshal(raw, s); err != nil {
		return nil, fmt.Errorf("input schema: %w", err)
	}
	r, err := s.Resolve(nil)
	if err != nil {
		return nil, fmt.Errorf("resolving schema: %w", err)
	}
	resolvedSchemas.Store(string(raw), r)
	return r, nil
}

// Must is New that panics on error; for package-level tool tables whose
// schemas are fixed at compile time and covered by tests.
func Must(t Tool, err error) Tool {
	if err != nil {
		panic(err)
	}
	return t
}

type typed[In any] struct {
	spec Spec // InputSchema set by wire when inferred
	run  func(context.Context, In, *Env) Result

	// infer builds the inferred schema on first use; nil when the
	// schema was given.
	infer    func() (json.RawMessage, error)
	wireOnce sync.Once
	wireErr  error

	once      sync.Once
	schema    *jsonschema.Resolved
	schemaErr error
}

// wire returns the tool's input schema, inferring it on first use.
func (t *typed[In]) wire() (json.RawMessage, error) {
	t.wireOnce.Do(func() {
		if t.infer != nil {
			t.spec.InputSchema, t.wireErr = t.infer()
			t.infer = nil
		}
	})
	return t.spec.InputSchema, t.wireErr
}

// Spec returns a copy: typed tools are often one value per process, shared
// by every deck, and their schema also drives validation.
func (t *typed[In]) Spec() Spec {
	if _, err := t.wire(); err != nil {
		s := t.spec
		s.InputSchema = refusingSchema(err)
		return s.clone()
	}
	return t.spec.clone()
}

// refusingSchema is the schema of a tool whose own schema could not be
// built: it admits no input, and its description names the fault.
func refusingSchema(err error) json.RawMessage {
	desc, _ := json.Marshal("This tool cannot describe its input (" + err.Error() + "); it is broken and refuses every call.")
	return json.RawMessage(`{"type":"object","description":` + string(desc) + `,"not":{}}`)
}

func (t *typed[In]) toolName() string { return t.spec.Name }

func (t *typed[In]) Run(ctx context.Context, input json.RawMessage, env *Env) Result {
	if _, err := t.wire(); err != nil {
		return Errorf("tool %s cannot describe its input: %v. This is a bug in the tool, not in your input.", t.spec.Name, err)
	}
	t.once.Do(func() { t.schema, t.schemaErr = resolve(t.spec.InputSchema) })
	if t.schemaErr != nil {
		return Errorf("tool %s cannot check its input: %v. This is a bug in the tool's schema, not in your input.", t.spec.Name, t.schemaErr)
	}
	in, err := Decode[In](t.schema, input)
	if err != nil {
		return Errorf("invalid input for %s: %v", t.spec.Name, err)
	}
	return t.run(ctx, in, env)
}

// Decode validates input against schema and decodes it into In. An empty or
// null input counts as {}. The error names the offending field.
func Decode[In any](schema *jsonschema.Resolved, input json.RawMessage) (In, error) {
	var in In
	input = bytes.Trim(input, " \t\r\n") // JSON whitespace only
	if len(input) == 0 || bytes.Equal(input, []byte("null")) {
		input = []byte("{}")
	}
	if !utf8.Valid(input) {
		return in, invalidUTF8(input)
	}
	var generic any
	if err := json.Unmarshal(input, &generic); err != nil {
		return in, fmt.Errorf("input is not valid JSON: %v", err)
	}
	if _, ok := generic.(map[string]any); !ok {
		return in, fmt.Errorf("input must be a JSON object, got %s", jsonKind(generic))
	}
	if err := schema.Validate(generic); err != nil {
		return in, errors.New(explainValidation(err, schema.Schema(), generic))
	}
	if err := json.Unmarshal(input, &in); err != nil {
		return in, fmt.Errorf("decoding input: %v", err)
	}
	return in, nil
}

// invalidUTF8 explains input that is not UTF-8, naming the top-level
// field that holds the bad bytes. Go's decoder would turn each into
// U+FFFD, so a write would silently put other bytes on disk than were
// sent; refusing is the only faithful answer.
func invalidUTF8(input []byte) error {
	at := len(input)
	for i := 0; i < len(input); {
		r, n := utf8.DecodeRune(input[i:])
		if r == utf8.RuneError && n == 1 {
			at = i
			break
		}
		i += n
	}
	where := "the input"
	var fields map[string]json.RawMessage
	if json.Unmarshal(input, &fields) == nil {
		names := make([]string, 0, len(fields))
		for k, v := range fields {
			if !utf8.Valid(v) {
				names = append(names, fmt.Sprintf("%q", k))
			}
		}
		slices.Sort(names)
		switch len(names) {
		case 0:
			where = "a property name"
		case 1:
			where = "field " + names[0]
		default:
			where = "fields " + strings.Join(names, ", ")
		}
	}
	return fmt.Errorf("%s holds bytes that are not valid UTF-8 (the first at byte %d of the input). JSON text is UTF-8 and cannot carry raw invalid bytes; decoding would replace them with U+FFFD, so the input is refused rather than changed. Send text as UTF-8; to put other bytes in a file, use bash (printf '\\xNN', base64 -d)", where, at)
}

func jsonKind(v any) string {
	switch v.(type) {
	case []any:
		return "an array"
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", v)
}
