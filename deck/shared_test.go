package deck_test

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/indusagi/induscode/deck"
	"github.com/indusagi/induscode/tool"
)

// scribble overwrites every byte of b, as a careless caller might when it
// "edits" a schema in place before sending it on.
func scribble(b []byte) {
	for i := range b {
		b[i] = '!'
	}
}

// TestHandedOutSpecsAreCopies guards against a shared schema: a caller
// that changes the schema bytes it was handed (from Box.Specs, from a
// Deck.Tools tool's Spec, or from the process-wide read tool) must not
// change what later decks show the model or how they validate input.
func TestHandedOutSpecsAreCopies(t *testing.T) {
	t.Parallel()
	provision := func() *deck.Deck {
		d, err := deck.Provision(deck.All, deck.Setup{Dir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	specOf := func(specs []tool.Spec, name string) tool.Spec {
		i := slices.IndexFunc(specs, func(s tool.Spec) bool { return s.Name == name })
		if i < 0 {
			t.Fatalf("no %s tool", name)
		}
		return specs[i]
	}
	first := provision()
	want := map[string][]byte{}
	for _, s := range first.Box().Specs() {
		want[s.Name] = bytes.Clone(s.InputSchema)
	}

	box := first.Box()
	for _, s := range box.Specs() {
		scribble(s.InputSchema)
	}
	for _, tl := range first.Tools() {
		scribble(tl.Spec().InputSchema)
	}
	for _, s := range box.Specs() {
		if !bytes.Equal(s.InputSchema, want[s.Name]) {
			t.Errorf("%s: the box's own specs changed through a copy it handed out", s.Name)
		}
	}

	later := provision()
	for _, s := range later.Box().Specs() {
		if !bytes.Equal(s.InputSchema, want[s.Name]) {
			t.Errorf("%s: a later deck shows the schema %.40q…", s.Name, s.InputSchema)
		}
		if !json.Valid(s.InputSchema) {
			t.Errorf("%s: a later deck's schema is not JSON", s.Name)
		}
	}
	if got := specOf(later.Box().Specs(), "read"); !bytes.Equal(got.InputSchema, want["read"]) {
		t.Fatalf("read's schema changed")
	}
	r := later.Box().Run(context.Background(), "enter_plan_mode", nil)
	if r.IsError {
		t.Errorf("enter_plan_mode fails in a later deck: %v", r)
	}
}

func TestEmptyObjectSchemaIsFresh(t *testing.T) {
	t.Parallel()
	a := tool.EmptyObjectSchema()
	scribble(a)
	if b := tool.EmptyObjectSchema(); !json.Valid(b) || bytes.Equal(a, b) {
		t.Errorf("EmptyObjectSchema() = %q after a caller changed an earlier result", b)
	}
}

func TestProfilesIsFresh(t *testing.T) {
	t.Parallel()
	p := deck.Profiles()
	want := slices.Clone(p)
	for i := range p {
		p[i] = 0
	}
	if got := deck.Profiles(); !slices.Equal(got, want) || len(got) == 0 {
		t.Errorf("Profiles() = %v after a caller changed an earlier result, want %v", got, want)
	}
	if _, err := deck.Provision(deck.Authoring, deck.Setup{Dir: t.TempDir()}); err != nil {
		t.Errorf("Provision after changing a Profiles() result: %v", err)
	}
}

// TestCatalogRowsAreCopies: a caller that changes the profiles of a row it
// was handed does not change what later decks provision.
func TestCatalogRowsAreCopies(t *testing.T) {
	t.Parallel()
	scramble := func(cards []deck.Card) {
		for _, c := range cards {
			for i := range c.Profiles {
				c.Profiles[i] = deck.All
			}
		}
	}
	scramble(deck.Catalog())
	scramble(deck.CardsFor(deck.Survey))
	if c, ok := deck.Find("read"); ok {
		scramble([]deck.Card{c})
	}
	if p, ok := deck.ProfilesOf("write"); ok {
		scramble([]deck.Card{{Profiles: p}})
	}
	d, err := deck.Provision(deck.Authoring, deck.Setup{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var names []string
	for _, tl := range d.Tools() {
		names = append(names, tool.NameOf(tl))
	}
	if !slices.Contains(names, "read") || slices.Contains(names, "write") {
		t.Errorf("authoring provisions %v after callers changed handed-out rows; want read and no write", names)
	}
}

// TestOutputSchemasAreCopies: a grafted tool's output schema (an MCP
// tool's, say) is handed out as a copy too.
func TestOutputSchemasAreCopies(t *testing.T) {
	t.Parallel()
	const out = `{"type":"object","properties":{"n":{"type":"integer"}}}`
	grafted := &tool.Func{S: tool.Spec{Name: "srv__count", InputSchema: tool.EmptyObjectSchema(), OutputSchema: json.RawMessage(out)},
		Fn: func(context.Context, json.RawMessage, *tool.Env) tool.Result { return tool.Text("1") }}
	d, err := deck.Provision(deck.Authoring, deck.Setup{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := d.Graft(grafted); err != nil {
		t.Fatal(err)
	}
	box := d.Box()
	for _, s := range box.Specs() {
		scribble(s.OutputSchema)
	}
	scribble(grafted.Spec().OutputSchema)
	for _, s := range box.Specs() {
		if s.Name == "srv__count" && string(s.OutputSchema) != out {
			t.Errorf("box shows output schema %q after a caller changed a copy", s.OutputSchema)
		}
	}
	if got := grafted.Spec().OutputSchema; string(got) != out {
		t.Errorf("tool shows output schema %q after a caller changed a copy", got)
	}
}
