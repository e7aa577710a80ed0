package tool

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
)

// Schema infers the JSON Schema of In: exported fields become properties
// named by their json tag, fields without omitempty/omitzero are required,
// unknown properties are refused, and a `jsonschema:"…"` tag is the
// property's description. To add what a Go type cannot say (defaults,
// bounds, enums), give [New] a [WithSchema] option.
func Schema[In any]() (*jsonschema.Schema, error) {
	s, err := jsonschema.For[In](nil)
	if err != nil {
		return nil, err
	}
	if s.Type != "object" {
		return nil, fmt.Errorf("tool input must be a struct (schema type object), got %q", s.Type)
	}
	return s, nil
}

// An Option changes how [New] builds a tool: [WithSchema] adjusts its
// input schema, [ChangesFiles] makes it a [FileChanger].
type Option func(*build)

// build collects the options of one New call.
type build struct {
	edits   []*schemaEdit
	changes func(json.RawMessage) ([]string, error)
}

// WithSchema adjusts the schema [New] infers from the handler's input
// type, for what the type cannot say: a default, bounds, an enum, a field
// that may be left out but never sent as null. The edit runs on a fresh
// inferred schema; [SetDefault], [SetRange], [SetMinimum], [SetEnum],
// [NotNull] and [Property] are the common edits. A panic in edit (a
// property that does not exist, say) makes New return an error.
//
// The adjusted schema is built on the first New that uses the option and
// kept with the option: a tool built for every session keeps its option in
// a package variable, so inference runs once per process, not per session.
// New refuses WithSchema together with an explicit Spec.InputSchema.
func WithSchema(edit func(s *jsonschema.Schema)) Option {
	e := &schemaEdit{edit: edit}
	return func(b *build) { b.edits = append(b.edits, e) }
}

// schemaEdit is one WithSchema option and the schemas it has built, by
// input type.
type schemaEdit struct {
	edit  func(*jsonschema.Schema)
	built sync.Map // reflect.Type -> json.RawMessage
}

// inferredSchemas caches plain inferred schemas by input type: inference
// is deterministic, costs far more than building the rest of a tool, and
// some tools are built for every session.
var inferredSchemas sync.Map // reflect.Type -> json.RawMessage

// inferSchema returns the wire schema of In, adjusted by e when e is not
// nil. Results are cached (see inferredSchemas and schemaEdit).
func inferSchema[In any](e *schemaEdit) (json.RawMessage, error) {
	typ := reflect.TypeFor[In]()
	cache := &inferredSchemas
	if e != nil {
		cache = &e.built
	}
	if raw, ok := cache.Load(typ); ok {
		return raw.(json.RawMessage), nil
	}
	s, err := Schema[In]()
	if err != nil {
		return nil, err
	}
	if e != nil {
		if err := e.apply(s); err != nil {
			return nil, err
		}
	}
	raw, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("encoding schema: %w", err)
	}
	got, _ := cache.LoadOrStore(typ, json.RawMessage(raw))
	return got.(json.RawMessage), nil
}

// apply runs the edit, turning its panic into an error, and checks that
// the result is still an object schema.
func (e *schemaEdit) apply(s *jsonschema.Schema) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("adjusting the schema: %v", r)
		}
	}()
	e.edit(s)
	if s.Type != "object" {
		return fmt.Errorf("adjusting the schema: its type must stay object, not %q", s.Type)
	}
	return nil
}

// Property returns the schema of property name of the object schema s. It
// panics when s has no such property; inside a [WithSchema] edit that
// panic becomes New's error, naming the property.
func Property(s *jsonschema.Schema, name string) *jsonschema.Schema {
	p := s.Properties[name]
	if p == nil {
		names := make([]string, 0, len(s.Properties))
		for k := range s.Properties {
			names = append(names, k)
		}
		slices.Sort(names)
		panic(fmt.Sprintf("the schema has no property %q (it has %v)", name, names))
	}
	return p
}

// SetDefault records v (encoded as JSON) as the default of property name.
func SetDefault(s *jsonschema.Schema, name string, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("default of %q: %v", name, err))
	}
	Property(s, name).Default = b
}

// SetMinimum gives the numeric property name a lower bound.
func SetMinimum(s *jsonschema.Schema, name string, lo float64) {
	Property(s, name).Minimum = &lo
}

// SetRange gives the numeric property name both bounds, inclusive.
func SetRange(s *jsonschema.Schema, name string, lo, hi float64) {
	p := Property(s, name)
	p.Minimum, p.Maximum = &lo, &hi
}

// SetEnum limits property name to values, in the order given (the order
// the model sees).
func SetEnum[T any](s *jsonschema.Schema, name string, values ...T) {
	enum := make([]any, len(values))
	for i, v := range values {
		enum[i] = v
	}
	Property(s, name).Enum = enum
}

// NotNull turns the ["null", T] type inferred for a pointer or slice field
// into plain T: such a field may be left out, but null is not a value a
// model should send.
func NotNull(s *jsonschema.Schema, name string) {
	p := Property(s, name)
	if p.Type != "" {
		return
	}
	rest := slices.DeleteFunc(slices.Clone(p.Types), func(t string) bool { return t == "null" })
	if len(rest) != 1 {
		panic(fmt.Sprintf("property %q has types %v; NotNull needs null and one other", name, p.Types))
	}
	p.Types, p.Type = nil, rest[0]
}
