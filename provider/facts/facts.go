// Package facts knows what a model is: its context window, how long an
// answer may be, its list prices (cache reads and writes included), and
// whether it reasons and reads images. The facts come from the data that
// charm.land/catwalk embeds (a maintained database of providers and their
// models, read offline, parsed on first use), with the user's overrides
// from settings on top, so a new model needs a new catwalk, not a change
// here.
//
// It is a package of its own, not part of package provider, because the
// embedded data weighs about a megabyte: the agent's side (the conductor,
// provider/connect, indusr-agent) imports it, and indusr, which never
// talks to a model, does not. Windows that a local server reports (Ollama,
// LM Studio) are asked of the server by provider/connect; this package
// knows only what a catalog can.
package facts

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"charm.land/catwalk/pkg/catwalk"
	"charm.land/catwalk/pkg/embedded"

	"github.com/indusagi/induscode/provider"
)

// Model is what is known of one model.
type Model struct {
	// ID names the model as a model id does (provider/name).
	ID provider.ModelID
	// Name is the catalog's display name ("Claude Sonnet 4.5"); "" when
	// only settings know the model.
	Name string
	// ContextWindow and MaxOutput are in tokens; 0 when not known.
	ContextWindow, MaxOutput int64
	// Price is the list price; the zero Price when none is known.
	Price provider.Price
	// Reasoning is whether the model thinks before it answers when asked;
	// ReasoningLevels the efforts it takes ("low", "medium", ...).
	Reasoning       bool
	ReasoningLevels []string
	// Images is whether the model reads images.
	Images bool
	// Source says where the facts came from.
	Source Source
}

// Source is where a model's facts came from.
type Source string

// The sources.
const (
	FromCatalog  Source = "catalog"  // catwalk's embedded data
	FromSettings Source = "settings" // the user's override alone
	FromBoth     Source = "catalog+settings"
)

// Catalog answers what is known of models: catwalk's data with overrides.
// Its methods are safe for concurrent use; it holds no mutable state.
type Catalog struct {
	overrides map[provider.ModelID]Override
}

// New returns a catalog with the user's overrides, keyed by model id
// ("ollama/qwen3-coder"); a key that is no model id, or a negative
// figure, is an error naming it.
func New(overrides map[string]Override) (*Catalog, error) {
	c := &Catalog{overrides: make(map[provider.ModelID]Override, len(overrides))}
	for k, o := range overrides {
		m, err := parseKey(k)
		if err != nil {
			return nil, err
		}
		if err := o.check(); err != nil {
			return nil, fmt.Errorf("models[%q]: %v", k, err)
		}
		c.overrides[m] = o
	}
	return c, nil
}

// parseKey reads an override's key, which must name its provider: a bare
// name would be guessed as ParseModelID guesses, and an override should
// say what it overrides.
func parseKey(k string) (provider.ModelID, error) {
	if !strings.Contains(k, "/") {
		return provider.ModelID{}, fmt.Errorf("models[%q]: name the model with its provider, such as anthropic/%s or ollama/%s", k, k, k)
	}
	m, err := provider.ParseModelID(k)
	if err != nil {
		return provider.ModelID{}, fmt.Errorf("models[%q]: %v", k, err)
	}
	return m, nil
}

// Default is the catalog without overrides.
func Default() *Catalog { return &Catalog{} }

// Lookup returns what is known of m: the catalog's facts for the model
// (matched by its id, or by the same model under another spelling: a
// date suffix, Vertex's "@", Bedrock's region and version), with the
// user's override on top. ok is false when neither knows the model.
func (c *Catalog) Lookup(m provider.ModelID) (Model, bool) {
	out, found := lookup(m)
	if o, ok := c.Override(m); ok {
		out = o.apply(out)
		if found {
			out.Source = FromBoth
		} else {
			out.Source = FromSettings
		}
		found = true
	}
	out.ID = m
	return out, found
}

// Override returns the user's override of m, if there is one.
func (c *Catalog) Override(m provider.ModelID) (Override, bool) {
	if c == nil {
		return Override{}, false
	}
	o, ok := c.overrides[m]
	return o, ok
}

// List returns the catalog's models of a provider (all providers when
// name is ""), overrides applied, in the catalog's order (newest first
// within a provider), then the models only settings name. Each call
// returns new values.
func (c *Catalog) List(name string) []Model {
	var out []Model
	seen := map[provider.ModelID]bool{}
	for _, p := range provider.Providers() {
		if name != "" && p.Name != name {
			continue
		}
		for _, src := range sourcesOf(p.Name) {
			if !src.listed {
				continue
			}
			for _, cm := range catalogOf(src.id) {
				if !src.admits(cm.ID) {
					continue
				}
				id := provider.ModelID{Provider: p.Name, Name: cm.ID}
				if p.Name == "vertex" {
					id.Name = VertexName(cm.ID)
				}
				if seen[id] {
					continue
				}
				seen[id] = true
				m, _ := c.Lookup(id)
				out = append(out, m)
			}
		}
	}
	var extra []provider.ModelID
	if c != nil {
		for id := range c.overrides {
			if !seen[id] && (name == "" || id.Provider == name) {
				extra = append(extra, id)
			}
		}
	}
	slices.SortFunc(extra, func(a, b provider.ModelID) int { return strings.Compare(a.String(), b.String()) })
	for _, id := range extra {
		m, _ := c.Lookup(id)
		out = append(out, m)
	}
	return out
}

// source is one catwalk provider a provider's models are looked up in.
type source struct {
	id catwalk.InferenceProvider
	// prefix, when set, admits only the catwalk models whose id starts
	// with it (Vertex's catalog lists Gemini models too; the vertex
	// provider reaches Anthropic's).
	prefix string
	// listed is whether List shows the source's models under the
	// provider; a fallback (Anthropic's catalog for Bedrock's Claude
	// models) is consulted, not listed.
	listed bool
}

func (s source) admits(id string) bool { return strings.HasPrefix(id, s.prefix) }

// sourcesOf returns where a provider's models are looked up, in order. A
// provider reached through another company's cloud falls back to the
// model maker's own catalog: a Claude model costs the same on Bedrock
// and Vertex at their global endpoints, and has the same window.
func sourcesOf(name string) []source {
	switch name {
	case "openai", "openai-chat":
		return []source{{id: catwalk.InferenceProviderOpenAI, listed: true}}
	case "bedrock":
		return []source{{id: catwalk.InferenceProviderBedrock, listed: true}, {id: catwalk.InferenceProviderBedrockEurope, listed: true},
			{id: catwalk.InferenceProviderAnthropic}}
	case "vertex":
		return []source{{id: catwalk.InferenceProviderVertexAI, prefix: "claude", listed: true}, {id: catwalk.InferenceProviderAnthropic}}
	case "ollama", "lmstudio":
		return nil // a local server's models are its own; ask it
	}
	return []source{{id: catwalk.InferenceProvider(name), listed: true}}
}

// embeddedData is catwalk's data, parsed once on first use. It is never
// changed after; lookups copy what they return.
var embeddedData = sync.OnceValue(func() map[catwalk.InferenceProvider][]catwalk.Model {
	out := map[catwalk.InferenceProvider][]catwalk.Model{}
	for _, p := range embedded.GetAll() {
		out[p.ID] = p.Models
	}
	return out
})

func catalogOf(id catwalk.InferenceProvider) []catwalk.Model { return embeddedData()[id] }

// lookup finds m in its provider's sources: the exact id first in every
// source, then the same model under another spelling.
func lookup(m provider.ModelID) (Model, bool) {
	srcs := sourcesOf(m.Provider)
	for _, src := range srcs {
		for _, cm := range catalogOf(src.id) {
			if src.admits(cm.ID) && cm.ID == m.Name {
				return fromCatwalk(cm), true
			}
		}
	}
	want := canonical(m.Name)
	for _, src := range srcs {
		for _, cm := range catalogOf(src.id) {
			if src.admits(cm.ID) && canonical(cm.ID) == want {
				return fromCatwalk(cm), true
			}
		}
	}
	return Model{}, false
}

// fromCatwalk converts a catwalk model. Catwalk prices cache writes as
// "input cached" and cache reads as "output cached" (Anthropic's two
// cache prices; OpenAI reports no cache writes, so only the read price
// applies there).
func fromCatwalk(cm catwalk.Model) Model {
	return Model{
		Name:          cm.Name,
		ContextWindow: cm.ContextWindow,
		MaxOutput:     cm.DefaultMaxTokens,
		Price: provider.Price{Input: cm.CostPer1MIn, Output: cm.CostPer1MOut,
			CacheRead: cm.CostPer1MOutCached, CacheWrite: cm.CostPer1MInCached},
		Reasoning:       cm.CanReason,
		ReasoningLevels: slices.Clone(cm.ReasoningLevels),
		Images:          cm.SupportsImages,
		Source:          FromCatalog,
	}
}

var (
	// regionPrefix is Bedrock's cross-region inference profile prefix
	// ("us.anthropic.claude-...").
	regionPrefix = regexp.MustCompile(`^(us|eu|apac|global|jp|au|ca|us-gov)\.`)
	// bedrockVersion is Bedrock's model version suffix ("-v1:0", "-v1").
	bedrockVersion = regexp.MustCompile(`-v\d+(:\d+)?$`)
	// dateSuffix is a release date: Anthropic's "-20250929", OpenAI's
	// "-2025-08-07".
	dateSuffix = regexp.MustCompile(`-(\d{8}|\d{4}-\d{2}-\d{2})$`)
)

// canonical is a model's name without the parts that spell the same
// model differently at different providers: "us.anthropic.claude-sonnet-
// 4-5-20250929-v1:0" (Bedrock), "claude-sonnet-4-5@20250929" (Vertex) and
// "claude-sonnet-4-5" (Anthropic's alias) are all "claude-sonnet-4-5".
func canonical(name string) string {
	s := strings.ToLower(strings.TrimSpace(name))
	s = regionPrefix.ReplaceAllString(s, "")
	s = strings.TrimPrefix(s, "anthropic.")
	s = bedrockVersion.ReplaceAllString(s, "")
	s = strings.ReplaceAll(s, "@", "-")
	s = strings.TrimSuffix(s, "-latest")
	return dateSuffix.ReplaceAllString(s, "")
}

// VertexName is a Claude model's name as Vertex AI spells it, the
// release date after an "@" ("claude-sonnet-4-5-20250929" ->
// "claude-sonnet-4-5@20250929"); a name without a date is returned as it
// is.
func VertexName(name string) string {
	if loc := dateSuffix.FindStringIndex(name); loc != nil && !strings.Contains(name, "@") {
		return name[:loc[0]] + "@" + strings.ReplaceAll(name[loc[0]+1:], "-", "")
	}
	return name
}

// BedrockID returns the Bedrock model id of an Anthropic model name
// ("claude-sonnet-4-5" -> "us.anthropic.claude-sonnet-4-5-20250929-v1:0"),
// for a program told to reach Anthropic's models through Bedrock; a name
// that is already a Bedrock id, or that the catalog does not list, is
// returned as it is.
func BedrockID(name string) string {
	if strings.Contains(name, "anthropic.") {
		return name
	}
	want := canonical(name)
	for _, src := range sourcesOf("bedrock") {
		if !src.listed {
			continue
		}
		for _, cm := range catalogOf(src.id) {
			if canonical(cm.ID) == want {
				return cm.ID
			}
		}
	}
	return name
}
