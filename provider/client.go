package provider

import (
	"context"
	"fmt"
	"net/http"
	"strings"
)

// Client streams model responses. Implementations are safe for concurrent
// use. Stream calls on (when not nil) with each piece as it arrives, on
// the caller's goroutine, and returns the whole response; a cancelled ctx
// stops the stream at once with ctx's error.
type Client interface {
	Stream(ctx context.Context, req Request, on func(Delta)) (*Response, error)
}

// WindowTeller is a client that can ask its server for the context
// window a model runs with (a local server, where the window is the
// server's setting, not the model's). A caller asks it with a type
// assertion; ok false means the server could not tell.
type WindowTeller interface {
	ContextWindow(ctx context.Context, model string) (tokens int64, ok bool)
}

// Opener opens a client for a "provider/model" id (see [ParseModelID])
// and returns the parsed id. A program passes one to whatever runs
// conversations, so that only the program links the adapters it offers.
type Opener func(id string) (Client, ModelID, error)

// Endpoint is where and how an adapter reaches its provider.
type Endpoint struct {
	APIKey string
	// BaseURL is the API's root; "" means the SDK's own default.
	BaseURL string
	// HTTPClient carries the requests; nil means the SDK's default.
	HTTPClient *http.Client
}

// API is the wire protocol a provider speaks.
type API uint8

// The APIs.
const (
	Messages        API = iota + 1 // Anthropic's Messages API
	ChatCompletions                // OpenAI's Chat Completions API (and every compatible server)
	Responses                      // OpenAI's Responses API
	GenerateContent                // Google's Gemini API (generateContent)
	// BedrockMessages and VertexMessages are Anthropic's Messages API
	// reached through Amazon Bedrock and Google Vertex AI: the same
	// messages, the cloud's paths and credentials.
	BedrockMessages
	VertexMessages
)

// ModelID is a parsed "provider/model" id.
type ModelID struct {
	Provider string // "anthropic", "openai", "ollama", ...
	Name     string // the model's name at the provider
}

func (m ModelID) String() string { return m.Provider + "/" + m.Name }

// ProviderInfo is what is known of a provider: its API, the variables of
// its key and base URL, and the base URL it uses when none is set.
type ProviderInfo struct {
	Name        string
	API         API
	KeyVar      string // "" when the provider needs no key
	BaseURLVar  string
	DefaultBase string // "" means the SDK's own default
}

// Providers returns the providers a model id may name, in a fixed order;
// each call returns a new slice. Any other provider name is refused.
func Providers() []ProviderInfo {
	return []ProviderInfo{
		{Name: "anthropic", API: Messages, KeyVar: "ANTHROPIC_API_KEY", BaseURLVar: "ANTHROPIC_BASE_URL"},
		{Name: "openai", API: Responses, KeyVar: "OPENAI_API_KEY", BaseURLVar: "OPENAI_BASE_URL"},
		// OpenAI's older API, for accounts, proxies and models that
		// speak only Chat Completions; same key and base URL.
		{Name: "openai-chat", API: ChatCompletions, KeyVar: "OPENAI_API_KEY", BaseURLVar: "OPENAI_BASE_URL"},
		// The Gemini SDK's own variable names.
		{Name: "gemini", API: GenerateContent, KeyVar: "GEMINI_API_KEY", BaseURLVar: "GOOGLE_GEMINI_BASE_URL"},
		// The clouds' credentials are their own (AWS's and Google's
		// chains), not one key; the base URL variables are Claude Code's.
		{Name: "bedrock", API: BedrockMessages, BaseURLVar: "ANTHROPIC_BEDROCK_BASE_URL"},
		{Name: "vertex", API: VertexMessages, BaseURLVar: "ANTHROPIC_VERTEX_BASE_URL"},
		// Local servers take any key; their usual ports are the defaults.
		{Name: "ollama", API: ChatCompletions, BaseURLVar: "OLLAMA_BASE_URL", DefaultBase: "http://127.0.0.1:11434/v1"},
		{Name: "lmstudio", API: ChatCompletions, BaseURLVar: "LMSTUDIO_BASE_URL", DefaultBase: "http://127.0.0.1:1234/v1"},
		{Name: "openrouter", API: ChatCompletions, KeyVar: "OPENROUTER_API_KEY", BaseURLVar: "OPENROUTER_BASE_URL", DefaultBase: "https://openrouter.ai/api/v1"},
	}
}

// Lookup returns the provider of that name.
func Lookup(name string) (ProviderInfo, bool) {
	for _, p := range Providers() {
		if p.Name == name {
			return p, true
		}
	}
	return ProviderInfo{}, false
}

// ParseModelID splits "provider/model". A bare name is taken as an
// Anthropic model when it starts with "claude", a Gemini one when it
// starts with "gemini" and an OpenAI one otherwise, so "--model
// claude-sonnet-4-5" works as users expect.
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
		if strings.HasPrefix(id, "gemini") {
			return ModelID{"gemini", id}, nil
		}
		return ModelID{"openai", id}, nil
	}
	if _, known := Lookup(p); !known {
		return ModelID{}, fmt.Errorf("unknown provider %q in model %q; providers are %s", p, id, strings.Join(providerNames(), ", "))
	}
	if name == "" {
		return ModelID{}, fmt.Errorf("model %q names no model after %q", id, p+"/")
	}
	return ModelID{p, name}, nil
}

func providerNames() []string {
	var out []string
	for _, p := range Providers() {
		out = append(out, p.Name)
	}
	return out
}
