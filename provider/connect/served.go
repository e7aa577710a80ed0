package connect

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"

	"github.com/indusagi/induscode/provider"
)

// Served is a model a local server serves.
type Served struct {
	Name string
	// ContextWindow is what the server runs the model with; 0 when it
	// does not say.
	ContextWindow int64
}

// IsLocal reports whether a provider is a server on the user's machine
// (Ollama, LM Studio), whose models are what it serves rather than what
// a catalog lists.
func IsLocal(name string) bool { return name == "ollama" || name == "lmstudio" }

// ServedModels asks the local server of a provider (see [IsLocal]) which
// models it serves, and the window of each, at the base URL cfg or the
// environment gives, else the server's usual port. A server that does
// not answer is an error naming where it was asked.
func ServedModels(ctx context.Context, name string, cfg Config) ([]Served, error) {
	info, ok := provider.Lookup(name)
	if !ok || !IsLocal(name) {
		return nil, fmt.Errorf("%s is not a local server; its models are the catalog's", name)
	}
	getenv := cfg.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	base := cfg.BaseURL
	if base == "" {
		base = getenv(info.BaseURLVar)
	}
	if base == "" {
		base = info.DefaultBase
	}
	root := strings.TrimSuffix(strings.TrimSuffix(base, "/"), "/v1")
	hc := cfg.HTTPClient
	if hc == nil {
		hc = http.DefaultClient
	}
	ctx, cancel := context.WithTimeout(ctx, askTimeout)
	defer cancel()
	var out []Served
	switch name {
	case "ollama":
		var tags struct {
			Models []struct{ Name string } `json:"models"`
		}
		if !fetch(ctx, hc, http.MethodGet, root+"/api/tags", nil, &tags) {
			return nil, fmt.Errorf("ollama did not answer at %s (start it, or set %s)", root, info.BaseURLVar)
		}
		for _, m := range tags.Models {
			n, _ := ollamaWindow(ctx, hc, root, m.Name)
			out = append(out, Served{Name: m.Name, ContextWindow: n})
		}
	case "lmstudio":
		var list struct {
			Data []struct {
				ID     string `json:"id"`
				Type   string `json:"type"`
				Loaded int64  `json:"loaded_context_length"`
				Max    int64  `json:"max_context_length"`
			} `json:"data"`
		}
		if !fetch(ctx, hc, http.MethodGet, root+"/api/v0/models", nil, &list) {
			return nil, fmt.Errorf("LM Studio did not answer at %s (start its server, or set %s)", root, info.BaseURLVar)
		}
		for _, m := range list.Data {
			if m.Type == "embeddings" {
				continue
			}
			w := m.Loaded
			if w == 0 {
				w = m.Max
			}
			out = append(out, Served{Name: m.ID, ContextWindow: w})
		}
	}
	return out, nil
}
