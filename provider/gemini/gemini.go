// Package gemini is the adapter of Google's Gemini API: a provider.Client
// over the official Go SDK (google.golang.org/genai, the Gemini API
// backend with an API key), and the conversions between the neutral
// conversation and the SDK's contents. It is the only package of the
// module that imports that SDK.
//
// Gemini's reasoning state is its thought signatures: opaque bytes on
// the part that followed the model's thinking (the first function call
// of a step, or a text part). They are kept as the Signature of the
// neutral block they came with and sent back on the same part, as the
// API requires of a tool loop; thought summaries ("thought" parts) are
// kept as thinking blocks and not sent back. A function call without an
// id (the Gemini API gives none) gets one made up here, which is never
// sent; its response is matched to it by name and order, as the API does.
//
// The client makes no retries of its own: package provider's
// [provider.WithRetries] does them, from the [provider.StatusError] made
// of the SDK's errors; the wait a 429 asks for (its RetryInfo detail) is
// given to the retries as a retry-after header.
package gemini

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"google.golang.org/genai"

	"github.com/indusagi/induscode/provider"
	"github.com/indusagi/induscode/provider/internal/toolcache"
)

// client speaks the Gemini API through genai.
type client struct {
	c     *genai.Client
	tools toolcache.Cache[*genai.Tool]
}

// New returns a client of the Gemini API at e, without retries. The SDK
// reads no variable for what e sets (key, base URL); the backend is
// always the Gemini API, whatever GOOGLE_GENAI_USE_VERTEXAI says.
func New(e provider.Endpoint) (provider.Client, error) {
	hc := http.Client{}
	if e.HTTPClient != nil {
		hc = *e.HTTPClient
	}
	hc.Transport = quietTransport{base: hc.Transport}
	cfg := &genai.ClientConfig{APIKey: e.APIKey, Backend: genai.BackendGeminiAPI, HTTPClient: &hc}
	if e.BaseURL != "" {
		cfg.HTTPOptions.BaseURL = e.BaseURL
	}
	c, err := genai.NewClient(context.Background(), cfg)
	if err != nil {
		return nil, fmt.Errorf("gemini: %w", err)
	}
	return &client{c: c}, nil
}

// madeUpID marks the ids this adapter gives function calls that came
// without one; they are not Gemini's and are never sent.
const madeUpID = "gemini-call-"

func (g *client) Stream(ctx context.Context, req provider.Request, on func(provider.Delta)) (*provider.Response, error) {
	tools, err := g.tools.Get(req.Tools, Tools)
	if err != nil {
		return nil, err
	}
	contents, cfg, err := params(req, tools)
	if err != nil {
		return nil, err
	}
	var acc accumulator
	cut := new(readFailure)
	ctx = context.WithValue(ctx, readFailureKey{}, cut)
	for chunk, err := range g.c.Models.GenerateContentStream(ctx, req.Model, contents, cfg) {
		if err != nil {
			if ctx.Err() != nil {
				return nil, context.Cause(ctx)
			}
			return nil, statusError(err)
		}
		acc.add(chunk, on)
	}
	if err := ctx.Err(); err != nil {
		return nil, context.Cause(ctx)
	}
	if acc.finish == "" {
		if err := cut.get(); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("gemini stream ended before its finish reason: %w", io.ErrUnexpectedEOF)
	}
	return acc.response(), nil
}

// statusError gives an answer of the API the neutral form the retries
// read; any other error (no answer at all) stays as it is.
func statusError(err error) error {
	var ae genai.APIError
	if !errors.As(err, &ae) {
		var pae *genai.APIError
		if !errors.As(err, &pae) {
			return err
		}
		ae = *pae
	}
	se := &provider.StatusError{Code: ae.Code, Type: ae.Status, Message: ae.Message, Err: err}
	if d := retryDelay(ae.Details); d > 0 {
		se.Header = http.Header{"Retry-After-Ms": {fmt.Sprint(d.Milliseconds())}}
	}
	return se
}

// retryDelay reads the wait of a google.rpc.RetryInfo detail ("30s",
// "1.5s"); 0 when there is none.
func retryDelay(details []map[string]any) time.Duration {
	for _, d := range details {
		if t, _ := d["@type"].(string); !strings.HasSuffix(t, "google.rpc.RetryInfo") {
			continue
		}
		s, _ := d["retryDelay"].(string)
		if dur, err := time.ParseDuration(s); err == nil && dur > 0 {
			return dur
		}
	}
	return 0
}

// Params turns a neutral request into the SDK's contents and config.
func Params(req provider.Request) ([]*genai.Content, *genai.GenerateContentConfig, error) {
	tools, err := Tools(req.Tools)
	if err != nil {
		return nil, nil, err
	}
	return params(req, tools)
}

func params(req provider.Request, tools []*genai.Tool) ([]*genai.Content, *genai.GenerateContentConfig, error) {
	cfg := &genai.GenerateContentConfig{Tools: tools, AutomaticContinuation: genai.Ptr(false)}
	if req.System != "" {
		cfg.SystemInstruction = genai.NewContentFromText(req.System, genai.RoleUser)
	}
	if req.MaxTokens > 0 {
		cfg.MaxOutputTokens = int32(min(req.MaxTokens, 1<<31-1))
	}
	if req.Temperature != nil {
		cfg.Temperature = genai.Ptr(float32(*req.Temperature))
	}
	if b := req.Thinking.Budget; b > 0 {
		cfg.ThinkingConfig = &genai.ThinkingConfig{IncludeThoughts: true, ThinkingBudget: genai.Ptr(int32(min(b, 1<<31-1)))}
	}
	names := map[string]string{} // tool_use id → tool name, for the responses
	var contents []*genai.Content
	for _, m := range req.Messages {
		c, err := content(m, names)
		if err != nil {
			return nil, nil, err
		}
		if c != nil {
			contents = append(contents, c)
		}
	}
	return contents, cfg, nil
}

// Tools turns tool definitions into one tool of function declarations,
// their schemas given as JSON Schema.
func Tools(defs []provider.ToolDef) ([]*genai.Tool, error) {
	if len(defs) == 0 {
		return nil, nil
	}
	t := &genai.Tool{}
	for _, d := range defs {
		fd := &genai.FunctionDeclaration{Name: d.Name, Description: d.Description}
		if len(d.InputSchema) > 0 {
			var schema map[string]any
			if err := json.Unmarshal(d.InputSchema, &schema); err != nil {
				return nil, fmt.Errorf("tool %s: input schema: %w", d.Name, err)
			}
			fd.ParametersJsonSchema = schema
		}
		t.FunctionDeclarations = append(t.FunctionDeclarations, fd)
	}
	return []*genai.Tool{t}, nil
}

// content turns one neutral message into a content of the user or the
// model; nil when nothing in it can go (an assistant message of another
// provider's thinking alone).
func content(m provider.Message, names map[string]string) (*genai.Content, error) {
	var parts []*genai.Part
	role := genai.RoleUser
	if m.Role == provider.Assistant {
		role = genai.RoleModel
	}
	for _, b := range m.Blocks {
		sig, err := signature(b)
		if err != nil {
			return nil, err
		}
		switch b.Kind {
		case provider.TextBlock:
			if b.Text != "" || sig != nil {
				parts = append(parts, &genai.Part{Text: b.Text, ThoughtSignature: sig})
			}
		case provider.ToolUseBlock:
			names[b.ID] = b.Name
			args := map[string]any{}
			if _, broken := b.BrokenInput(); !broken && len(b.Input) > 0 {
				if err := json.Unmarshal(b.Input, &args); err != nil {
					args = map[string]any{}
				}
			}
			fc := &genai.FunctionCall{Name: b.Name, Args: args}
			if !strings.HasPrefix(b.ID, madeUpID) {
				fc.ID = b.ID
			}
			parts = append(parts, &genai.Part{FunctionCall: fc, ThoughtSignature: sig})
		case provider.ToolResultBlock:
			key := "output"
			if b.IsError {
				key = "error"
			}
			fr := &genai.FunctionResponse{Name: names[b.ToolUseID], Response: map[string]any{key: nonEmpty(b.Text)}}
			if !strings.HasPrefix(b.ToolUseID, madeUpID) {
				fr.ID = b.ToolUseID
			}
			parts = append(parts, &genai.Part{FunctionResponse: fr})
		}
	}
	if len(parts) == 0 {
		return nil, nil
	}
	return &genai.Content{Role: string(role), Parts: parts}, nil
}

// signature is the thought signature a text or tool_use block carries
// back (see provider.Block).
func signature(b provider.Block) ([]byte, error) {
	if b.Signature == "" || (b.Kind != provider.TextBlock && b.Kind != provider.ToolUseBlock) {
		return nil, nil
	}
	sig, err := base64.StdEncoding.DecodeString(b.Signature)
	if err != nil {
		return nil, fmt.Errorf("gemini: a %s block's thought signature is not base64: %w", b.Kind, err)
	}
	return sig, nil
}

// nonEmpty keeps a tool result from being sent empty, which models
// misread as a failed call.
func nonEmpty(s string) string {
	if s == "" {
		return "(no output)"
	}
	return s
}
