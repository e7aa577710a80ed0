package connect

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/indusagi/induscode/provider"
)

// OllamaDefaultWindow is the context Ollama runs a model with when
// neither the model's parameters (num_ctx) nor the server's
// OLLAMA_CONTEXT_LENGTH say otherwise (4096 tokens in Ollama's docs); it
// truncates a longer prompt without an error.
const OllamaDefaultWindow = 4096

// askTimeout bounds the question to a local server: it answers at once
// or not at all.
const askTimeout = 3 * time.Second

// windowed is a client whose server can tell a model's window.
type windowed struct {
	provider.Client
	ask func(ctx context.Context, model string) (int64, bool)
}

func (w windowed) ContextWindow(ctx context.Context, model string) (int64, bool) {
	ctx, cancel := context.WithTimeout(ctx, askTimeout)
	defer cancel()
	return w.ask(ctx, model)
}

var _ provider.WindowTeller = windowed{}

// localWindow returns how to ask the local server at base (an
// OpenAI-compatible root ending in /v1) for a model's window, or nil for
// a provider that has no such question.
func localWindow(name, base string, hc *http.Client) func(context.Context, string) (int64, bool) {
	root := strings.TrimSuffix(strings.TrimSuffix(base, "/"), "/v1")
	if hc == nil {
		hc = http.DefaultClient
	}
	switch name {
	case "ollama":
		return func(ctx context.Context, model string) (int64, bool) { return ollamaWindow(ctx, hc, root, model) }
	case "lmstudio":
		return func(ctx context.Context, model string) (int64, bool) { return lmstudioWindow(ctx, hc, root, model) }
	}
	return nil
}

// numCtx finds num_ctx in the parameters text of Ollama's /api/show (a
// line "num_ctx 32768"); 0 when it is not set.
func numCtx(params string) int64 {
	for line := range strings.Lines(params) {
		f := strings.Fields(line)
		if len(f) == 2 && f[0] == "num_ctx" {
			if n, err := strconv.ParseInt(f[1], 10, 64); err == nil && n > 0 {
				return n
			}
		}
	}
	return 0
}

// ollamaWindow asks Ollama's /api/show: the model's num_ctx parameter
// when it sets one, else Ollama's default, never more than the model was
// trained for.
func ollamaWindow(ctx context.Context, hc *http.Client, root, model string) (int64, bool) {
	body, _ := json.Marshal(map[string]string{"model": model})
	var show struct {
		Parameters string                     `json:"parameters"`
		ModelInfo  map[string]json.RawMessage `json:"model_info"`
	}
	if !fetch(ctx, hc, http.MethodPost, root+"/api/show", body, &show) {
		return 0, false
	}
	window := int64(OllamaDefaultWindow)
	if n := numCtx(show.Parameters); n > 0 {
		window = n
	}
	for k, v := range show.ModelInfo {
		if strings.HasSuffix(k, ".context_length") {
			if n, err := strconv.ParseInt(string(v), 10, 64); err == nil && n > 0 && n < window {
				window = n
			}
		}
	}
	return window, true
}

// lmstudioWindow asks LM Studio's /api/v0/models/{model}: the context the
// model is loaded with, else the most it can take.
func lmstudioWindow(ctx context.Context, hc *http.Client, root, model string) (int64, bool) {
	var info struct {
		Loaded int64 `json:"loaded_context_length"`
		Max    int64 `json:"max_context_length"`
	}
	if !fetch(ctx, hc, http.MethodGet, root+"/api/v0/models/"+model, nil, &info) {
		return 0, false
	}
	switch {
	case info.Loaded > 0:
		return info.Loaded, true
	case info.Max > 0:
		return info.Max, true
	}
	return 0, false
}

// maxAnswer bounds what a local server's answer may be: a model's facts,
// not a stream.
const maxAnswer = 4 << 20

func fetch(ctx context.Context, hc *http.Client, method, url string, body []byte, v any) bool {
	req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(body))
	if err != nil {
		return false
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := hc.Do(req)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return false
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	return err == nil && json.Unmarshal(b, v) == nil
}
