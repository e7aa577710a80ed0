package intent_test

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/indusagi/induscode/intent"
)

type (
	AddText        struct{}
	HTTPGet        struct{}
	SelectElements struct{}
	MoveToV2       struct{}
	Undo           struct{}
	ID             struct{}
)

type anyIntent interface{}

// Tool names are the snake_case of the type name unless given.
func TestDerivedNames(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		v    intent.Variant[anyIntent]
		want string
	}{
		{"two words", intent.Of[anyIntent, AddText](intent.Meta{Description: "d"}), "add_text"},
		{"leading acronym", intent.Of[anyIntent, HTTPGet](intent.Meta{Description: "d"}), "http_get"},
		{"camel case", intent.Of[anyIntent, SelectElements](intent.Meta{Description: "d"}), "select_elements"},
		{"digits", intent.Of[anyIntent, MoveToV2](intent.Meta{Description: "d"}), "move_to_v2"},
		{"one word", intent.Of[anyIntent, Undo](intent.Meta{Description: "d"}), "undo"},
		{"all capitals", intent.Of[anyIntent, ID](intent.Meta{Description: "d"}), "id"},
		{"given name wins", intent.Of[anyIntent, AddText](intent.Meta{Name: "write-note", Description: "d"}), "write-note"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			set, err := intent.NewSet("s", c.v)
			if err != nil {
				t.Fatal(err)
			}
			if got := set.Names(); !slices.Equal(got, []string{c.want}) {
				t.Fatalf("Names() = %v, want [%s]", got, c.want)
			}
		})
	}
}

// Hidden variants are not shown to the model (names, definitions) but
// still parse.
func TestHiddenVariants(t *testing.T) {
	t.Parallel()
	set := tallySet(t)
	if got, want := set.Names(), []string{"add", "emit", "fail_now"}; !slices.Equal(got, want) {
		t.Fatalf("Names() = %v, want %v", got, want)
	}
	var defs []string
	for _, d := range set.Definitions() {
		defs = append(defs, d.Name)
		if d.Description == "" || d.Label == "" {
			t.Errorf("definition %s lacks a description or label: %+v", d.Name, d)
		}
	}
	if want := []string{"add", "emit", "fail_now"}; !slices.Equal(defs, want) {
		t.Fatalf("Definitions() names = %v, want %v", defs, want)
	}
	m, ok := set.Meta("reset")
	if !ok || !m.Hidden {
		t.Fatalf("Meta(reset) = %+v, %v; want a hidden variant", m, ok)
	}
	in, err := set.Parse("reset", nil)
	if err != nil {
		t.Fatalf("a hidden variant must parse: %v", err)
	}
	if _, ok := in.(Reset); !ok {
		t.Fatalf("Parse(reset) = %T, want Reset", in)
	}
	if name, ok := set.NameOf(in); !ok || name != "reset" {
		t.Fatalf("NameOf(Reset{}) = %q, %v", name, ok)
	}
}

// A definition carries the schema inferred from the struct: properties by
// json tag, required fields, descriptions from jsonschema tags, and no
// unknown properties.
func TestDefinitionSchema(t *testing.T) {
	t.Parallel()
	set := tallySet(t)
	d := set.Definitions()[0]
	var s struct {
		Type       string `json:"type"`
		Properties map[string]struct {
			Type        string `json:"type"`
			Description string `json:"description"`
		} `json:"properties"`
		Required             []string `json:"required"`
		AdditionalProperties any      `json:"additionalProperties"`
	}
	if err := json.Unmarshal(d.InputSchema, &s); err != nil {
		t.Fatal(err)
	}
	n := s.Properties["n"]
	if s.Type != "object" || n.Type != "integer" || n.Description != "how much to add" || !slices.Equal(s.Required, []string{"n"}) {
		t.Fatalf("schema of add = %s", d.InputSchema)
	}
	if s.AdditionalProperties == nil {
		t.Fatalf("schema of add allows unknown properties: %s", d.InputSchema)
	}
	// Definitions are copies: changing one changes nothing in the set.
	d.InputSchema[0] = 'X'
	if again := set.Definitions()[0].InputSchema; again[0] != '{' {
		t.Fatalf("a caller changed the set's schema: %s", again)
	}
}

type notAnOp struct{}
type number int

func (number) isOp() {}

// A set that cannot be what its author meant is refused, naming the
// problem.
func TestNewSetRefuses(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		variants []intent.Variant[op]
		want     string
	}{
		{"no variants", nil, "no variants"},
		{"duplicate name", []intent.Variant[op]{
			intent.Of[op, Add](intent.Meta{Description: "a"}),
			intent.Of[op, Emit](intent.Meta{Name: "add", Description: "b"}),
		}, "two variants are named add"},
		{"duplicate type", []intent.Variant[op]{
			intent.Of[op, Add](intent.Meta{Description: "a"}),
			intent.Of[op, Add](intent.Meta{Name: "plus", Description: "b"}),
		}, "registered as both add and plus"},
		{"type outside the family", []intent.Variant[op]{intent.Of[op, notAnOp](intent.Meta{Description: "a"})}, "does not implement"},
		{"visible without description", []intent.Variant[op]{intent.Of[op, Add](intent.Meta{})}, "has no description"},
		{"bad tool name", []intent.Variant[op]{intent.Of[op, Add](intent.Meta{Name: "add text", Description: "a"})}, "tool name"},
		{"not a struct", []intent.Variant[op]{intent.Of[op, number](intent.Meta{Description: "a"})}, "must be a struct"},
		{"zero variant", []intent.Variant[op]{{}}, "zero Variant"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			set, err := intent.NewSet("tally", c.variants...)
			if err == nil || set != nil {
				t.Fatalf("NewSet accepted it: %v", set.Names())
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %q does not say %q", err, c.want)
			}
		})
	}
}

// Parsing reports an unknown name and bad arguments as typed errors that
// say what to fix.
func TestParseErrors(t *testing.T) {
	t.Parallel()
	set := tallySet(t)
	cases := []struct {
		name, tool, args string
		unknown          bool
		want             string // in the message
	}{
		{"unknown name", "subtract", `{}`, true, `no intent named "subtract"; its intents are add, emit, fail_now`},
		{"missing field", "add", `{}`, false, "n"},
		{"wrong type", "add", `{"n":"three"}`, false, "field n"},
		{"unknown field", "add", `{"n":1,"m":2}`, false, "m"},
		{"not JSON", "add", `{"n":`, false, "not valid JSON"},
		{"not an object", "add", `[1]`, false, "must be a JSON object, got an array"},
		{"fraction for an integer", "add", `{"n":1.5}`, false, "field n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := set.Parse(c.tool, json.RawMessage(c.args))
			if err == nil {
				t.Fatal("Parse accepted it")
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %q does not say %q", err, c.want)
			}
			var ue *intent.UnknownError
			var ae *intent.ArgumentError
			switch {
			case c.unknown:
				if !errors.As(err, &ue) || ue.Name != c.tool || slices.Contains(ue.Known, "reset") {
					t.Fatalf("want an *UnknownError for %s that does not list hidden names, got %#v", c.tool, err)
				}
			default:
				if !errors.As(err, &ae) || ae.Intent != c.tool || errors.Unwrap(err) == nil {
					t.Fatalf("want an *ArgumentError for %s wrapping the cause, got %#v", c.tool, err)
				}
			}
		})
	}
	// Empty and null arguments are {}.
	for _, args := range []string{``, `null`, ` {} `} {
		if _, err := set.Parse("reset", json.RawMessage(args)); err != nil {
			t.Errorf("Parse(reset, %q): %v", args, err)
		}
	}
}
