package provider

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"
)

// Client streams model responses. Implementations are safe for concurrent
// use. Stream calls on (when not nil) with each piece as it arrives, on
// the caller's goroutine, and returns the whole response; a cancelled ctx
// stops the stream at once with ctx's error.
type Client interface {
	Stream(ctx context.Context, req Request, on func(Delta)) (*Response, error)
}

// API is the wire protocol a provider speaks.
type API uint8

// The APIs.
const (
	Messages        API = iota + 1 // Anthropic's Messages API
	ChatCompletions                // OpenAI's Chat Completions API
)

// ModelID is a parsed "provider/model" id.
type ModelID struct {
	Provider string // "anthropic", "openai", "ollama", ...
	Name     string // the model's name at the provider
}

func (m ModelID) String() string { return m.Provider + "/" + m.Name }

// ProviderInfo is what [Open] knows of a provider: its API, the variables
// of its key and base URL, and the base URL it uses when none is set.
type ProviderInfo struct {
	Name        string
	API         API
	KeyVar      string // "" when the provider needs no key
	BaseURLVar  string
	DefaultBase string // "" means the SDK's own default
}

// Providers returns the providers [Open] knows, in a fixed order; each
// call returns a new slice. Any other provider name is refused.
func Providers() []ProviderInfo {
	return []ProviderInfo{
		{Name: "anthropic", API: Messages, KeyVar: "ANTHROPIC_API_KEY", BaseURLVar: "ANTHROPIC_BASE_URL"},
		{Name: "openai", API: ChatCompletions, KeyVar: "OPENAI_API_KEY", BaseURLVar: "OPENAI_BASE_URL"},
		// Local servers take any key; their usual ports are the defaults.
		{Name: "ollama", API: ChatCompletions, BaseURLVar: "OLLAMA_BASE_URL", DefaultBase: "http://127.0.0.1:11434/v1"},
		{Name: "lmstudio", API: ChatCompletions, BaseURLVar: "LMSTUDIO_BASE_URL", DefaultBase: "http://127.0.0.1:1234/v1"},
		{Name: "openrouter", API: ChatCompletions, KeyVar: "OPENROUTER_API_KEY", BaseURLVar: "OPENROUTER_BASE_URL", DefaultBase: "https://openrouter.ai/api/v1"},
	}
}

// ParseModelID splits "provider/model". A bare name is taken as an
// Anthropic model when it starts with "claude" and an OpenAI one
// otherwise, so "--model claude-sonnet-4-5" works as users expect.
func ParseModelID(id string) (ModelID, error) {
	id = strings.TrimSpace(id)
	if id == "" {
		return ModelID{}, fmt.Errorf("no model given; name one as provider/model, such as anthropic/claude-sonnet-4-5 or openai/gpt-5")
	}
	p, name, ok := strings.Cut(id, "/")
	if !ok {
		if strings.HasPrefix(id, "claude") {
			return ModelID{"anthropic", id}, nil
		}
		return ModelID{"openai", id}, nil
	}
	if _, known := providerInfo(p); !known {
		return ModelID{}, fmt.Errorf("unknown provider %q in model %q; providers are %s", p, id, strings.Join(providerNames(), ", "))
	}
	if name == "" {
		return ModelID{}, fmt.Errorf("model %q names no model after %q", id, p+"/")
	}
	return ModelID{p, name}, nil
}

func providerInfo(name string) (ProviderInfo, bool) {
	for _, p := range Providers() {
		if p.Name == name {
			return p, true
		}
	}
	return ProviderInfo{}, false
}

func providerNames() []string {
	var out []string
	for _, p := range Providers() {
		out = append(out, p.Name)
	}
	return out
}

// Config is how [Open] reaches a provider. The zero value reads the
// process environment and uses http.DefaultClient.
type Config struct {
	// Getenv reads a variable; nil means os.Getenv.
	Getenv func(string) string
	// APIKey and BaseURL, when set, win over the environment.
	APIKey, BaseURL string
	// HTTPClient carries the requests; nil means the SDK's default.
	HTTPClient *http.Client
	// MaxRetries is how many times a failed call is tried again (429,
	// 529, 5xx, a dropped connection); 0 means DefaultMaxRetries and a
	// negative value none.
	MaxRetries int
}

// DefaultMaxRetries is how often a call is retried when Config says
// nothing: the SDKs' own default is two, one more rides out a short
// overload.
const DefaultMaxRetries = 3

// MissingKeyError is a provider whose key variable is not set.
type MissingKeyError struct {
	Provider, Var string
}

func (e *MissingKeyError) Error() string {
	return fmt.Sprintf("%s needs an API key: set %s (for a local OpenAI-compatible server use the ollama/ prefix or any value)", e.Provider, e.Var)
}

// Open returns a client for the model id (see [ParseModelID]) and the
// parsed id. A provider whose key variable is empty is a *MissingKeyError.
func Open(id string, cfg Config) (Client, ModelID, error) {
	m, err := ParseModelID(id)
	if err != nil {
		return nil, ModelID{}, err
	}
	info, _ := providerInfo(m.Provider)
	getenv := cfg.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	key := cfg.APIKey
	if key == "" && info.KeyVar != "" {
		key = getenv(info.KeyVar)
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
	} else if retries < 0 {
		retries = 0
	}
	conn := conn{key: key, base: base, http: cfg.HTTPClient}
	var c Client
	switch info.API {
	case Messages:
		c = newAnthropic(conn)
	case ChatCompletions:
		c = newOpenAI(conn)
	}
	return &retrying{inner: c, max: retries, model: m}, m, nil
}

// conn is what every SDK client is built from.
type conn struct {
	key, base string
	http      *http.Client
}
