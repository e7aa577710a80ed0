// Package connect opens a model client from a "provider/model" id: it
// finds the provider's key and base URL (in the environment unless the
// caller gives them), makes the adapter of the provider's API
// (provider/anthropic, for bedrock/… and vertex/… too; provider/openai for
// Responses, openai/…, and Chat Completions, openai-chat/… and the local
// servers; provider/gemini) and wraps it in the retries of package
// provider, pricing each answer from provider/facts. Claude Code's
// CLAUDE_CODE_USE_BEDROCK and CLAUDE_CODE_USE_VERTEX send anthropic/…
// through a cloud. It is the one place that knows every adapter, so
// importing it links every model SDK: only the agent's program does.
package connect

import (
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/indusagi/induscode/provider"
	"github.com/indusagi/induscode/provider/anthropic"
	"github.com/indusagi/induscode/provider/facts"
	"github.com/indusagi/induscode/provider/gemini"
	"github.com/indusagi/induscode/provider/openai"
)

// Config is how [Open] reaches a provider. The zero value reads the
// process environment and uses the SDKs' default HTTP client.
type Config struct {
	// Getenv reads a variable; nil means os.Getenv.
	Getenv func(string) string
	// APIKey and BaseURL, when set, win over the environment.
	APIKey, BaseURL string
	// HTTPClient carries the requests; nil means the SDK's default.
	HTTPClient *http.Client
	// Catalog prices each answer (facts.Model.Price); nil means the
	// catalog without the user's overrides.
	Catalog *facts.Catalog
	// MaxRetries is how many times a failed call is tried again (429,
	// 529, 5xx, a dropped connection); 0 means DefaultMaxRetries and a
	// negative value none.
	MaxRetries int
	// IdleTimeout ends a call whose answer sends nothing for so long (a
	// stalled stream; see provider.IdleTimeout). 0 means the variable
	// INDUSR_STREAM_IDLE_TIMEOUT (a Go duration, "90s"), else
	// provider.DefaultIdleTimeout; a negative value none.
	IdleTimeout time.Duration
	// OpenAIAPI chooses the API of openai/… models: "responses" (the
	// default) or "chat" for Chat Completions, as openai-chat/… does
	// (for a proxy or compatible server at OPENAI_BASE_URL that speaks
	// only that). "" means the variable INDUSR_OPENAI_API.
	OpenAIAPI string
}

// GoogleAPIKeyVar is read for gemini/… models when GEMINI_API_KEY is
// not set, as Google's own tools do.
const GoogleAPIKeyVar = "GOOGLE_API_KEY"

// OpenAIAPIVar names the variable that sets Config.OpenAIAPI when the
// caller does not.
const OpenAIAPIVar = "INDUSR_OPENAI_API"

// DefaultMaxRetries is how often a call is retried when Config says
// nothing: the SDKs' own default is two, one more rides out a short
// overload.
const DefaultMaxRetries = 3

// MissingKeyError is a provider whose key variable is not set.
type MissingKeyError struct {
	Provider, Var string
}

func (e *MissingKeyError) Error() string {
	return e.Provider + " needs an API key: set " + e.Var + " (for a local OpenAI-compatible server use the ollama/ prefix or any value)"
}

// Open returns a client for the model id (see [provider.ParseModelID])
// and the parsed id. A provider whose key variable is empty is a
// *MissingKeyError.
func Open(id string, cfg Config) (provider.Client, provider.ModelID, error) {
	m, err := provider.ParseModelID(id)
	if err != nil {
		return nil, provider.ModelID{}, err
	}
	getenv := cfg.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	m = throughCloud(m, getenv)
	info, _ := provider.Lookup(m.Provider)
	key := cfg.APIKey
	if key == "" && info.KeyVar != "" {
		key = getenv(info.KeyVar)
		if key == "" && m.Provider == "gemini" {
			key = getenv(GoogleAPIKeyVar) // the Gemini SDK's other name for it
		}
		if key == "" {
			return nil, m, &MissingKeyError{Provider: m.Provider, Var: info.KeyVar}
		}
	}
	if key == "" {
		key = "none" // local servers ignore it; the SDK wants one
	}
	base := cfg.BaseURL
	if base == "" {
		base = getenv(info.BaseURLVar)
	}
	if base == "" {
		base = info.DefaultBase
	}
	retries := cfg.MaxRetries
	if retries == 0 {
		retries = DefaultMaxRetries
	}
	idle, err := idleTimeout(cfg.IdleTimeout, getenv)
	if err != nil {
		return nil, m, err
	}
	hc := cfg.HTTPClient
	if idle > 0 {
		c := http.Client{}
		if hc != nil {
			c = *hc
		}
		c.Transport = provider.IdleTimeout(c.Transport, idle)
		hc = &c
	}
	e := provider.Endpoint{APIKey: key, BaseURL: base, HTTPClient: hc}
	api, err := openAIAPI(info, cfg.OpenAIAPI, getenv)
	if err != nil {
		return nil, m, err
	}
	var c provider.Client
	switch api {
	case provider.Messages:
		c = anthropic.New(e)
	case provider.ChatCompletions:
		c = openai.New(e)
	case provider.Responses:
		c = openai.NewResponses(e)
	case provider.GenerateContent:
		c, err = gemini.New(e)
	case provider.BedrockMessages:
		c, err = anthropic.NewBedrock(anthropic.Cloud{Getenv: getenv, BaseURL: base, HTTPClient: hc, LookupClient: cfg.HTTPClient})
	case provider.VertexMessages:
		c, err = anthropic.NewVertex(anthropic.Cloud{Getenv: getenv, BaseURL: base, HTTPClient: hc, LookupClient: cfg.HTTPClient})
	default:
		err = fmt.Errorf("provider %s: no adapter for its API", m.Provider)
	}
	if err != nil {
		return nil, m, err
	}
	cat := cfg.Catalog
	if cat == nil {
		cat = facts.Default()
	}
	known, _ := cat.Lookup(m)
	c = provider.WithRetries(c, m, retries, known.Price)
	if ask := localWindow(m.Provider, base, hc); ask != nil {
		c = windowed{Client: c, ask: ask}
	}
	return c, m, nil
}

// The variables with which Claude Code sends Anthropic's models through a
// cloud; indusr honours them for anthropic/ ids and bare claude names.
const (
	UseBedrockVar = "CLAUDE_CODE_USE_BEDROCK"
	UseVertexVar  = "CLAUDE_CODE_USE_VERTEX"
)

// throughCloud turns an Anthropic model id into the cloud's when the
// environment says Anthropic's models are reached through one: Bedrock's
// model id for the same model (facts.BedrockID), Vertex's name as it is.
func throughCloud(m provider.ModelID, getenv func(string) string) provider.ModelID {
	if m.Provider != "anthropic" {
		return m
	}
	switch {
	case truthy(getenv(UseBedrockVar)):
		return provider.ModelID{Provider: "bedrock", Name: facts.BedrockID(m.Name)}
	case truthy(getenv(UseVertexVar)):
		return provider.ModelID{Provider: "vertex", Name: m.Name}
	}
	return m
}

func truthy(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "", "0", "false", "no", "off":
		return false
	}
	return true
}

// IdleTimeoutVar names the variable that sets the stall bound of every
// call when Config does not.
const IdleTimeoutVar = "INDUSR_STREAM_IDLE_TIMEOUT"

func idleTimeout(d time.Duration, getenv func(string) string) (time.Duration, error) {
	if d != 0 {
		return d, nil
	}
	v := getenv(IdleTimeoutVar)
	if v == "" {
		return provider.DefaultIdleTimeout, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return 0, fmt.Errorf("%s=%q is not a duration (say 90s or 5m; 0 turns the bound off)", IdleTimeoutVar, v)
	}
	if d == 0 {
		return -1, nil
	}
	return d, nil
}

// openAIAPI is the API of the provider, with the setting of openai/…
// applied.
func openAIAPI(info provider.ProviderInfo, set string, getenv func(string) string) (provider.API, error) {
	if info.API != provider.Responses {
		return info.API, nil
	}
	if set == "" {
		set = getenv(OpenAIAPIVar)
	}
	switch set {
	case "", "responses":
		return provider.Responses, nil
	case "chat", "chat-completions", "chat_completions":
		return provider.ChatCompletions, nil
	}
	return 0, fmt.Errorf("OpenAI API %q is none of responses or chat (set by %s or the openaiApi setting)", set, OpenAIAPIVar)
}

// Opener returns [Open] with cfg, for a program to hand to what runs its
// conversations (conductor.Options.Open).
func Opener(cfg Config) provider.Opener {
	return func(id string) (provider.Client, provider.ModelID, error) { return Open(id, cfg) }
}
