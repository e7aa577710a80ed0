package intent

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/indusagi/induscode/tool"
)

// Meta is what Go cannot read from a variant's type at run time: the
// words the model sees and whether the model sees the variant at all.
type Meta struct {
	// Name is the tool name; empty means the snake_case of the type name
	// (AddText is add_text).
	Name string
	// Description tells the model what the intent does. Visible variants
	// must have one; hidden ones may leave it empty.
	Description string
	// Hidden keeps the variant out of Names, Definitions and Tools: it is
	// for the user interface (selection, undo), not for the model, and it
	// can still be parsed and dispatched.
	Hidden bool
	// ReadOnly marks an intent that changes nothing (a query), so hosts
	// may allow it without asking.
	ReadOnly bool
}

// Variant is one registered member of an intent family I: a Go struct
// type V that implements I, with its Meta and input schema. Make one with
// [Of] and hand it to [NewSet].
type Variant[I any] struct {
	meta   Meta
	typ    reflect.Type
	schema json.RawMessage
	decode func(json.RawMessage) (I, error)
	err    error // reported by NewSet, so that Of can be used in a list
}

// Of registers the struct type V as a variant of the intent family I. Its
// input schema is inferred from V's fields by [tool.Schema] (json tags name
// the properties, `jsonschema:"…"` tags describe them). A V that does not
// implement I, or whose schema cannot be inferred, makes [NewSet] fail.
func Of[I, V any](m Meta) Variant[I] {
	typ := reflect.TypeFor[V]()
	v := Variant[I]{meta: m, typ: typ}
	if v.meta.Name == "" {
		if typ.Name() == "" {
			v.err = fmt.Errorf("intent of type %v: an unnamed type needs Meta.Name", typ)
			return v
		}
		v.meta.Name = snakeCase(typ.Name())
	}
	var zero V
	if _, ok := any(zero).(I); !ok {
		v.err = fmt.Errorf("intent %s: type %v does not implement %v", v.meta.Name, typ, reflect.TypeFor[I]())
		return v
	}
	s, err := tool.Schema[V]()
	if err != nil {
		v.err = fmt.Errorf("intent %s: %w", v.meta.Name, err)
		return v
	}
	raw, err := json.Marshal(s)
	if err != nil {
		v.err = fmt.Errorf("intent %s: encoding schema: %w", v.meta.Name, err)
		return v
	}
	// Resolve a copy decoded from the wire bytes, so the validator checks
	// exactly the schema the model is shown.
	wire := new(jsonschema.Schema)
	if err := json.Unmarshal(raw, wire); err != nil {
		v.err = fmt.Errorf("intent %s: decoding schema: %w", v.meta.Name, err)
		return v
	}
	resolved, err := wire.Resolve(nil)
	if err != nil {
		v.err = fmt.Errorf("intent %s: resolving schema: %w", v.meta.Name, err)
		return v
	}
	v.schema = raw
	v.decode = func(args json.RawMessage) (I, error) {
		in, err := tool.Decode[V](resolved, args)
		if err != nil {
			var none I
			return none, err
		}
		return any(in).(I), nil
	}
	return v
}

// Set is a registered intent family: the variants of one modality, in
// registration order. It is immutable once built and safe for concurrent
// use.
type Set[I any] struct {
	name     string
	variants []Variant[I]
	byName   map[string]int
	byType   map[reflect.Type]int
}

// NewSet registers the variants of the intent family I under the
// modality's name (used in error messages). It fails, naming every
// problem, when a variant could not be built, two variants share a name
// or a type, a name is not a valid tool name, or a visible variant has no
// description.
func NewSet[I any](name string, variants ...Variant[I]) (*Set[I], error) {
	s := &Set[I]{name: name, byName: make(map[string]int), byType: make(map[reflect.Type]int)}
	var errs []error
	if len(variants) == 0 {
		errs = append(errs, fmt.Errorf("intent set %s has no variants", name))
	}
	for _, v := range variants {
		if v.typ == nil {
			errs = append(errs, fmt.Errorf("intent set %s: a zero Variant; build variants with intent.Of", name))
			continue
		}
		if v.err != nil {
			errs = append(errs, v.err)
			continue
		}
		n := v.meta.Name
		switch {
		case !tool.ValidName(n):
			errs = append(errs, fmt.Errorf("intent %q: a tool name is 1 to 64 of a-z, A-Z, 0-9, '_' and '-'", n))
			continue
		case !v.meta.Hidden && v.meta.Description == "":
			errs = append(errs, fmt.Errorf("intent %s is visible to the model but has no description", n))
			continue
		}
		if _, dup := s.byName[n]; dup {
			errs = append(errs, fmt.Errorf("intent set %s: two variants are named %s", name, n))
			continue
		}
		if i, dup := s.byType[v.typ]; dup {
			errs = append(errs, fmt.Errorf("intent set %s: type %v is registered as both %s and %s", name, v.typ, s.variants[i].meta.Name, n))
			continue
		}
		s.byName[n] = len(s.variants)
		s.byType[v.typ] = len(s.variants)
		s.variants = append(s.variants, v)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return s, nil
}

// Name is the modality's name, as given to NewSet.
func (s *Set[I]) Name() string { return s.name }

// Names returns the names of the visible variants in registration order:
// the tools the model may call.
func (s *Set[I]) Names() []string {
	var out []string
	for _, v := range s.variants {
		if !v.meta.Hidden {
			out = append(out, v.meta.Name)
		}
	}
	return out
}

// Definitions returns one tool spec per visible variant, in registration
// order: name, label, description, input schema and read-only flag. Each
// call returns fresh copies; changing them changes nothing in the set.
func (s *Set[I]) Definitions() []tool.Spec {
	var out []tool.Spec
	for _, v := range s.variants {
		if !v.meta.Hidden {
			out = append(out, v.spec())
		}
	}
	return out
}

// Meta returns the registration of the named variant, hidden ones
// included.
func (s *Set[I]) Meta(name string) (Meta, bool) {
	i, ok := s.byName[name]
	if !ok {
		return Meta{}, false
	}
	return s.variants[i].meta, true
}

// NameOf returns the name of the variant in holds; false when its type is
// not registered in the set (or in is nil).
func (s *Set[I]) NameOf(in I) (string, bool) {
	t := reflect.TypeOf(any(in))
	if t == nil {
		return "", false
	}
	i, ok := s.byType[t]
	if !ok {
		return "", false
	}
	return s.variants[i].meta.Name, true
}

func (v Variant[I]) spec() tool.Spec {
	return tool.Spec{
		Name:        v.meta.Name,
		Label:       label(v.meta.Name),
		Description: v.meta.Description,
		InputSchema: slices.Clone(v.schema),
		ReadOnly:    v.meta.ReadOnly,
	}
}
