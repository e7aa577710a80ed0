package connect_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/indusagi/induscode/provider"
	"github.com/indusagi/induscode/provider/connect"
)

// A local server is asked what window it runs a model with: Ollama's
// num_ctx (its default when the model sets none, never more than the
// model was trained for), LM Studio's loaded context.
func TestLocalServersTellTheWindow(t *testing.T) {
	for _, tt := range []struct {
		name, model, path, answer string
		want                      int64
	}{
		{"ollama num_ctx", "ollama/qwen3:8b", "/api/show", `{"parameters":"num_ctx 32768\nstop \"x\"","model_info":{"qwen3.context_length":40960}}`, 32768},
		{"ollama default", "ollama/qwen3:8b", "/api/show", `{"parameters":"stop \"x\"","model_info":{"qwen3.context_length":40960}}`, connect.OllamaDefaultWindow},
		{"ollama small model", "ollama/tiny", "/api/show", `{"model_info":{"llama.context_length":2048}}`, 2048},
		{"lmstudio loaded", "lmstudio/qwen3-8b", "/api/v0/models/qwen3-8b", `{"max_context_length":131072,"loaded_context_length":16384}`, 16384},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path != tt.path {
					http.NotFound(w, r)
					return
				}
				w.Write([]byte(tt.answer))
			}))
			defer srv.Close()
			c, m, err := connect.Open(tt.model, connect.Config{BaseURL: srv.URL + "/v1", Getenv: func(string) string { return "" }})
			if err != nil {
				t.Fatal(err)
			}
			wt, ok := c.(provider.WindowTeller)
			if !ok {
				t.Fatal("a local model's client cannot ask its window")
			}
			if n, ok := wt.ContextWindow(context.Background(), m.Name); !ok || n != tt.want {
				t.Errorf("window %d (%v), want %d", n, ok, tt.want)
			}
		})
	}
	c, _, _ := connect.Open("anthropic/claude-sonnet-4-5", connect.Config{APIKey: "k"})
	if _, ok := c.(provider.WindowTeller); ok {
		t.Error("a cloud model's client asks for a window")
	}
}
