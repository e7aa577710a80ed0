package facts

import (
	"strings"
	"testing"

	"github.com/indusagi/induscode/provider"
)

func id(s string) provider.ModelID {
	p, n, _ := strings.Cut(s, "/")
	return provider.ModelID{Provider: p, Name: n}
}

// The catalog knows the models people name, under each provider's
// spelling of them, with the prices a bill shows.
func TestLookupSpellings(t *testing.T) {
	t.Parallel()
	sonnet := provider.Price{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75}
	for _, tc := range []struct {
		id     string
		window int64
		price  provider.Price
	}{
		{"anthropic/claude-sonnet-4-5-20250929", 200_000, sonnet},
		{"anthropic/claude-sonnet-4-5", 200_000, sonnet}, // the alias without its date
		{"openai/gpt-5", 400_000, provider.Price{Input: 1.25, Output: 10, CacheRead: 0.125, CacheWrite: 0.125}},
		{"bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0", 200_000, sonnet},
		{"bedrock/anthropic.claude-sonnet-4-5-20250929-v1:0", 200_000, sonnet},                                                 // no inference profile
		{"vertex/claude-sonnet-4-5@20250929", 200_000, sonnet},                                                                 // Vertex's "@"
		{"vertex/claude-opus-4-1@20250805", 200_000, provider.Price{Input: 15, Output: 75, CacheRead: 1.5, CacheWrite: 18.75}}, // through Anthropic's own list
		{"gemini/gemini-2.5-pro", 1_048_576, provider.Price{}},
	} {
		t.Run(tc.id, func(t *testing.T) {
			m, ok := Default().Lookup(id(tc.id))
			if !ok {
				t.Fatalf("%s is not known", tc.id)
			}
			if m.ContextWindow != tc.window {
				t.Errorf("window %d, want %d", m.ContextWindow, tc.window)
			}
			if tc.price != (provider.Price{}) && m.Price != tc.price {
				t.Errorf("price %+v, want %+v", m.Price, tc.price)
			}
			if m.Price.Input <= 0 || m.MaxOutput <= 0 || m.Source != FromCatalog || m.ID != id(tc.id) {
				t.Errorf("facts incomplete: %+v", m)
			}
		})
	}
}

func TestLookupUnknown(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"anthropic/claude-nonesuch-9", "ollama/qwen3-coder", "openai/gpt-5-turbo-ultra", "vertex/gemini-2.5-pro"} {
		if m, ok := Default().Lookup(id(s)); ok {
			t.Errorf("%s: found %+v; a model the catalog does not list must not borrow another's facts", s, m)
		}
	}
}

// The user's override corrects the fields it sets and keeps the rest;
// it also makes a model the catalog does not know known.
func TestOverride(t *testing.T) {
	t.Parallel()
	in, no := 2.0, false
	cat, err := New(map[string]Override{
		"anthropic/claude-sonnet-4-5": {Price: &PriceOverride{Input: &in}, Images: &no},
		"ollama/qwen3-coder":          {ContextWindow: 32768},
	})
	if err != nil {
		t.Fatal(err)
	}
	m, ok := cat.Lookup(id("anthropic/claude-sonnet-4-5"))
	if !ok || m.Price.Input != 2 || m.Price.Output != 15 || m.Images || m.ContextWindow != 200_000 || m.Source != FromBoth {
		t.Errorf("override of a listed model: %+v", m)
	}
	m, ok = cat.Lookup(id("ollama/qwen3-coder"))
	if !ok || m.ContextWindow != 32768 || m.Price != (provider.Price{}) || m.Source != FromSettings {
		t.Errorf("override of an unlisted model: %+v %v", m, ok)
	}
	if _, ok := cat.Lookup(id("anthropic/claude-sonnet-4-5-20250929")); !ok {
		t.Error("the dated name lost its facts")
	}
	if got := cat.List("ollama"); len(got) != 1 || got[0].ID != id("ollama/qwen3-coder") {
		t.Errorf("List(ollama) = %+v, want the one model settings name", got)
	}
}

func TestOverrideRefused(t *testing.T) {
	t.Parallel()
	neg := -1.0
	for name, tc := range map[string]struct {
		o    map[string]Override
		want string
	}{
		"bare name":       {map[string]Override{"qwen3": {ContextWindow: 1}}, "ollama/qwen3"},
		"unknown provide": {map[string]Override{"nowhere/x": {ContextWindow: 1}}, "unknown provider"},
		"negative window": {map[string]Override{"ollama/x": {ContextWindow: -5}}, "cannot be negative"},
		"negative price":  {map[string]Override{"openai/gpt-5": {Price: &PriceOverride{Output: &neg}}}, "price.output"},
	} {
		if _, err := New(tc.o); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one saying %q", name, err, tc.want)
		}
	}
}

func TestList(t *testing.T) {
	t.Parallel()
	for _, p := range []string{"anthropic", "openai", "bedrock", "vertex"} {
		ms := Default().List(p)
		if len(ms) < 3 {
			t.Errorf("List(%s): %d models", p, len(ms))
		}
		for _, m := range ms {
			if m.ID.Provider != p || m.ContextWindow <= 0 {
				t.Errorf("List(%s): %+v", p, m)
			}
			if p == "vertex" && !strings.HasPrefix(m.ID.Name, "claude") {
				t.Errorf("List(vertex) shows %s, which the vertex provider (Anthropic's models) cannot reach", m.ID)
			}
		}
	}
	if ms := Default().List("ollama"); len(ms) != 0 {
		t.Errorf("List(ollama) from the catalog: %+v; a local server's models are its own", ms)
	}
}

// What Lookup returns is the caller's: changing it changes no later answer.
func TestLookupCopies(t *testing.T) {
	t.Parallel()
	m, _ := Default().Lookup(id("openai/gpt-5"))
	if len(m.ReasoningLevels) == 0 {
		t.Fatal("no reasoning levels")
	}
	m.ReasoningLevels[0] = "changed"
	again, _ := Default().Lookup(id("openai/gpt-5"))
	if again.ReasoningLevels[0] == "changed" {
		t.Error("the catalog's data was changed through a returned value")
	}
}

func TestVertexName(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"claude-sonnet-4-5-20250929": "claude-sonnet-4-5@20250929", "claude-sonnet-4-6": "claude-sonnet-4-6",
		"claude-sonnet-4-5@20250929": "claude-sonnet-4-5@20250929"} {
		if got := VertexName(in); got != want {
			t.Errorf("VertexName(%q) = %q, want %q", in, got, want)
		}
	}
	for _, m := range Default().List("vertex") {
		if strings.Contains(m.ID.Name, "-2025") {
			t.Errorf("List(vertex) names %s, which Vertex does not take (its dates follow an @)", m.ID)
		}
	}
}

func TestBedrockID(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"claude-sonnet-4-5":                            "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
		"claude-sonnet-4-5-20250929":                   "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
		"eu.anthropic.claude-sonnet-4-5-20250929-v1:0": "eu.anthropic.claude-sonnet-4-5-20250929-v1:0",
		"claude-nonesuch":                              "claude-nonesuch",
	} {
		if got := BedrockID(in); got != want {
			t.Errorf("BedrockID(%q) = %q, want %q", in, got, want)
		}
	}
}
