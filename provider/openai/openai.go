// Package openai holds the adapters of OpenAI's two APIs, each a
// provider.Client over the official openai-go with the conversions
// between the neutral conversation and the SDK's parameters: the
// Responses API ([NewResponses]), which OpenAI's reasoning models are
// served best through, and Chat Completions ([New]), which every
// OpenAI-compatible server speaks (Ollama, vLLM, LM Studio, OpenRouter,
// llama.cpp's server). It is the only package of the module that imports
// that SDK.
//
// The client makes no retries of its own (the SDK's are turned off):
// package provider's [provider.WithRetries] does them for every adapter,
// from the [provider.StatusError] this adapter makes of the SDK's errors.
package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"
	"github.com/openai/openai-go/v3/shared"

	"github.com/indusagi/induscode/provider"
	"github.com/indusagi/induscode/provider/internal/toolcache"
)

// client speaks Chat Completions through openai-go, to OpenAI or any
// server that speaks the same API at its base URL.
type client struct {
	c     openai.Client
	tools toolcache.Cache[openai.ChatCompletionToolUnionParam]
}

// New returns a Chat Completions client of the server at e, without
// retries.
func New(e provider.Endpoint) provider.Client {
	opts := []option.RequestOption{option.WithAPIKey(e.APIKey), option.WithMaxRetries(0)}
	if e.BaseURL != "" {
		opts = append(opts, option.WithBaseURL(e.BaseURL))
	}
	if e.HTTPClient != nil {
		opts = append(opts, option.WithHTTPClient(e.HTTPClient))
	}
	return &client{c: openai.NewClient(opts...)}
}

func (o *client) Stream(ctx context.Context, req provider.Request, on func(provider.Delta)) (*provider.Response, error) {
	tools, err := o.tools.Get(req.Tools, Tools)
	if err != nil {
		return nil, err
	}
	params, err := params(req, tools)
	if err != nil {
		return nil, err
	}
	stream := o.c.Chat.Completions.NewStreaming(ctx, params)
	defer stream.Close()
	var acc chatAccumulator
	for stream.Next() {
		acc.add(stream.Current(), on)
	}
	if err := ctx.Err(); err != nil {
		return nil, context.Cause(ctx)
	}
	if err := stream.Err(); err != nil {
		return nil, statusError(err)
	}
	if acc.id == "" {
		return nil, fmt.Errorf("chat completions stream ended without a chunk: %w", io.ErrUnexpectedEOF)
	}
	if acc.finish == "" && !acc.usageSeen {
		// The body ended cleanly but short: neither the finish reason
		// nor the usage chunk (the two ends every server sends one of)
		// came, so what came is half an answer.
		return nil, fmt.Errorf("chat completions stream ended before its finish reason: %w", io.ErrUnexpectedEOF)
	}
	return acc.response(), nil
}

// statusError gives an answer of the API the neutral form the retries
// read; any other error (no answer at all) stays as it is.
func statusError(err error) error {
	var streamErr *ssestream.StreamError
	if errors.As(err, &streamErr) {
		// An error chunk in a stream that had begun.
		var body struct {
			Error struct{ Message, Type, Code string } `json:"error"`
		}
		json.Unmarshal(streamErr.Event.Data, &body)
		code := body.Error.Code
		if code == "" {
			code = body.Error.Type
		}
		f := streamFailure(code, body.Error.Message, string(streamErr.Event.Data)).(*provider.StatusError)
		f.Err = err
		return f
	}
	var oe *openai.Error
	if !errors.As(err, &oe) {
		return err
	}
	// openai-go's error text is the status alone: the message and code
	// (context_length_exceeded) are kept beside it.
	se := &provider.StatusError{Code: oe.StatusCode, Type: oe.Type, ErrorCode: oe.Code, Message: oe.Message, Err: err}
	if oe.Response != nil {
		se.Header = oe.Response.Header
	}
	return se
}

// chatAccumulator assembles one choice's chunks: text, reasoning (the
// reasoning_content field of compatible servers), tool calls by index,
// the finish reason and the usage chunk that include_usage adds.
//
// Text and arguments grow in builders: a long write's arguments arrive
// in thousands of small deltas, and adding each to a string copied the
// whole so far every time (quadratic in the size of the call).
type chatAccumulator struct {
	id, model, finish string
	text, reasoning   strings.Builder
	calls             []*chatCall
	usage             openai.CompletionUsage
	usageSeen         bool
}

type chatCall struct {
	id, name string
	args     strings.Builder
}

func (a *chatAccumulator) add(ch openai.ChatCompletionChunk, on func(provider.Delta)) {
	a.id, a.model = ch.ID, ch.Model
	if ch.JSON.Usage.Valid() && ch.Usage.JSON.PromptTokens.Valid() {
		a.usage, a.usageSeen = ch.Usage, true
	}
	for _, c := range ch.Choices {
		if c.Index != 0 {
			continue
		}
		d := c.Delta
		if d.Content != "" {
			a.text.WriteString(d.Content)
			if on != nil {
				on(provider.Delta{Kind: provider.TextDelta, Text: d.Content})
			}
		}
		if f, ok := d.JSON.ExtraFields["reasoning_content"]; ok {
			var s string
			if json.Unmarshal([]byte(f.Raw()), &s) == nil && s != "" {
				a.reasoning.WriteString(s)
				if on != nil {
					on(provider.Delta{Kind: provider.ThinkingDelta, Text: s})
				}
			}
		}
		for _, tc := range d.ToolCalls {
			i := int(tc.Index)
			if i < 0 || i > len(a.calls) {
				continue // a gap: not a stream any server sends
			}
			if i == len(a.calls) {
				a.calls = append(a.calls, &chatCall{})
			}
			call := a.calls[i]
			if tc.ID != "" {
				call.id = tc.ID
			}
			if tc.Function.Name != "" {
				call.name += tc.Function.Name
				if on != nil {
					on(provider.Delta{Kind: provider.ToolUseStart, Index: i + 1, Name: tc.Function.Name})
				}
			}
			call.args.WriteString(tc.Function.Arguments)
		}
		if c.FinishReason != "" {
			a.finish = c.FinishReason
		}
	}
}

func (a *chatAccumulator) response() *provider.Response {
	r := &provider.Response{Model: a.model, ID: a.id, Message: provider.Message{Role: provider.Assistant}}
	if a.reasoning.Len() > 0 {
		r.Message.Blocks = append(r.Message.Blocks, provider.Block{Kind: provider.ThinkingBlock, Text: a.reasoning.String()})
	}
	if a.text.Len() > 0 {
		r.Message.Blocks = append(r.Message.Blocks, provider.Block{Kind: provider.TextBlock, Text: a.text.String()})
	}
	for i, c := range a.calls {
		// Arguments that are no JSON object (cut off by finish_reason
		// length, or a small model's mistake) are kept as their text;
		// the call is answered with an error instead of being run.
		args := provider.ToolInput([]byte(c.args.String()))
		id := c.id
		if id == "" {
			id = fmt.Sprintf("call_%d", i) // some local servers send none
		}
		r.Message.Blocks = append(r.Message.Blocks, provider.Block{Kind: provider.ToolUseBlock, ID: id, Name: c.name, Input: args})
	}
	switch a.finish {
	case "stop":
		r.Stop = provider.StopEndTurn
	case "tool_calls", "function_call":
		r.Stop = provider.StopToolUse
	case "length":
		r.Stop = provider.StopMaxTokens
	case "content_filter":
		r.Stop = provider.StopRefusal
	default:
		r.Stop = provider.StopOther
	}
	if len(a.calls) > 0 && r.Stop != provider.StopMaxTokens {
		r.Stop = provider.StopToolUse // servers that say "stop" after calls
	}
	cached := a.usage.PromptTokensDetails.CachedTokens
	r.Usage = provider.Usage{
		InputTokens:     a.usage.PromptTokens - cached,
		OutputTokens:    a.usage.CompletionTokens,
		CacheReadTokens: cached,
	}
	return r
}

// Params turns a neutral request into Chat Completions parameters: the
// system prompt is the first message, each tool_result block its own tool
// message, and streaming asks for the usage chunk.
func Params(req provider.Request) (openai.ChatCompletionNewParams, error) {
	tools, err := Tools(req.Tools)
	if err != nil {
		return openai.ChatCompletionNewParams{}, err
	}
	return params(req, tools)
}

func params(req provider.Request, tools []openai.ChatCompletionToolUnionParam) (openai.ChatCompletionNewParams, error) {
	p := openai.ChatCompletionNewParams{
		Model:         shared.ChatModel(req.Model),
		StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)},
	}
	if req.MaxTokens > 0 {
		p.MaxCompletionTokens = openai.Int(req.MaxTokens)
	}
	if req.Thinking.Effort != "" {
		p.ReasoningEffort = shared.ReasoningEffort(req.Thinking.Effort)
	}
	if req.Temperature != nil {
		p.Temperature = openai.Float(*req.Temperature)
	}
	if req.System != "" {
		p.Messages = append(p.Messages, openai.SystemMessage(req.System))
	}
	p.Tools = tools
	for _, m := range req.Messages {
		p.Messages = append(p.Messages, Messages(m)...)
	}
	return p, nil
}

// Tools turns tool definitions into function tools.
func Tools(defs []provider.ToolDef) ([]openai.ChatCompletionToolUnionParam, error) {
	out := make([]openai.ChatCompletionToolUnionParam, 0, len(defs))
	for _, d := range defs {
		var schema map[string]any
		if len(d.InputSchema) > 0 {
			if err := json.Unmarshal(d.InputSchema, &schema); err != nil {
				return nil, fmt.Errorf("tool %s: input schema: %w", d.Name, err)
			}
		}
		fn := shared.FunctionDefinitionParam{Name: d.Name, Parameters: schema}
		if d.Description != "" {
			fn.Description = openai.String(d.Description)
		}
		out = append(out, openai.ChatCompletionFunctionTool(fn))
	}
	return out, nil
}

// Messages turns one neutral message into Chat Completions messages: an assistant message with its tool calls, or the user's text
// and one tool message per tool_result. Thinking is not sent back.
func Messages(m provider.Message) []openai.ChatCompletionMessageParamUnion {
	if m.Role == provider.Assistant {
		var a openai.ChatCompletionAssistantMessageParam
		if t := m.Text(); t != "" {
			a.Content.OfString = openai.String(t)
		}
		for _, b := range m.ToolUses() {
			input := string(b.Input)
			if _, broken := b.BrokenInput(); broken || input == "" {
				// Servers that parse the arguments of the history
				// (llama.cpp's) refuse broken ones; the call's error
				// result quotes them.
				input = "{}"
			}
			a.ToolCalls = append(a.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{
				OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
					ID:       b.ID,
					Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: b.Name, Arguments: input},
				},
			})
		}
		return []openai.ChatCompletionMessageParamUnion{{OfAssistant: &a}}
	}
	var out []openai.ChatCompletionMessageParamUnion
	var text string
	for _, b := range m.Blocks {
		switch b.Kind {
		case provider.ToolResultBlock:
			content := nonEmpty(b.Text)
			if b.IsError {
				content = "Error: " + content
			}
			out = append(out, openai.ToolMessage(content, b.ToolUseID))
		case provider.TextBlock:
			text += b.Text
		}
	}
	if text != "" {
		out = append(out, openai.UserMessage(text))
	}
	return out
}

// nonEmpty keeps a tool result from being sent empty, which the APIs
// refuse or models misread as a failed call.
func nonEmpty(s string) string {
	if s == "" {
		return "(no output)"
	}
	return s
}
