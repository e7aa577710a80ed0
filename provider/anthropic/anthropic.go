// Package anthropic is the adapter of Anthropic's Messages API: a
// provider.Client over the official anthropic-sdk-go, and the conversions
// between the neutral conversation and the SDK's parameters and messages.
// It is the only package of the module that imports that SDK. The same
// client reaches Anthropic's models on Amazon Bedrock and Google Vertex
// AI ([NewBedrock], [NewVertex]) through the SDK's own bedrock and vertex
// request options, with credentials found as AWS's and Google's tools
// find them but without asking a cloud's metadata service off that cloud.
//
// The client makes no retries of its own (the SDK's are turned off):
// package provider's [provider.WithRetries] does them for every adapter,
// from the [provider.StatusError] this adapter makes of the SDK's errors.
package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/indusagi/induscode/provider"
	"github.com/indusagi/induscode/provider/internal/toolcache"
)

// client speaks the Messages API through anthropic-sdk-go.
type client struct {
	c     anthropic.Client
	tools toolcache.Cache[anthropic.ToolUnionParam]
}

// New returns a client of the Messages API at e, without retries.
func New(e provider.Endpoint) provider.Client {
	opts := []option.RequestOption{option.WithAPIKey(e.APIKey), option.WithMaxRetries(0)}
	if e.BaseURL != "" {
		opts = append(opts, option.WithBaseURL(e.BaseURL))
	}
	if e.HTTPClient != nil {
		opts = append(opts, option.WithHTTPClient(e.HTTPClient))
	}
	return &client{c: anthropic.NewClient(opts...)}
}

func (a *client) Stream(ctx context.Context, req provider.Request, on func(provider.Delta)) (*provider.Response, error) {
	tools, err := a.tools.Get(req.Tools, Tools)
	if err != nil {
		return nil, err
	}
	params, err := params(req, tools)
	if err != nil {
		return nil, err
	}
	stream := a.c.Messages.NewStreaming(ctx, params)
	defer stream.Close()
	var msg anthropic.Message
	var broken map[int]string // tool inputs that are not JSON, by block index
	stopped := false
	for stream.Next() {
		ev := stream.Current()
		stopped = stopped || ev.Type == "message_stop"
		if ev.Type == "content_block_stop" || ev.Type == "message_stop" {
			// The SDK empties a tool input that is not JSON (cut off
			// at the output limit) when its block ends: keep the text.
			for i, c := range msg.Content {
				if ev.Type == "content_block_stop" && int64(i) != ev.Index {
					continue
				}
				if c.Type == "tool_use" && len(c.Input) > 0 && !json.Valid(c.Input) {
					if broken == nil {
						broken = map[int]string{}
					}
					broken[i] = string(c.Input)
				}
			}
		}
		if err := msg.Accumulate(ev); err != nil {
			return nil, fmt.Errorf("anthropic stream: %w", err)
		}
		if on != nil {
			emitAnthropic(ev, on)
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, context.Cause(ctx)
	}
	if err := stream.Err(); err != nil {
		return nil, statusError(err)
	}
	if msg.ID == "" {
		return nil, fmt.Errorf("anthropic stream ended before message_start: %w", io.ErrUnexpectedEOF)
	}
	if !stopped {
		// The body ended cleanly but short (a proxy gave up): what came
		// is half an answer, not one.
		return nil, fmt.Errorf("anthropic stream ended before message_stop: %w", io.ErrUnexpectedEOF)
	}
	return fromMessage(&msg, broken), nil
}

// statusError gives an answer of the API the neutral form the retries
// read; any other error (no answer at all) stays as it is.
func statusError(err error) error {
	var ae *anthropic.Error
	if !errors.As(err, &ae) {
		return err
	}
	var body struct {
		Error struct{ Message string } `json:"error"`
		// Message is Bedrock's form of an error: {"message": "..."},
		// with the exception's name in x-amzn-ErrorType.
		Message string `json:"message"`
	}
	json.Unmarshal([]byte(ae.RawJSON()), &body)
	se := &provider.StatusError{Code: ae.StatusCode, Type: string(ae.Type()), Message: body.Error.Message, Err: err}
	if se.Message == "" {
		se.Message = body.Message
	}
	if ae.Response != nil {
		se.Header = ae.Response.Header
		if t := ae.Response.Header.Get("X-Amzn-Errortype"); se.Type == "" && t != "" {
			se.Type, _, _ = strings.Cut(t, ":")
		}
	}
	return se
}

func emitAnthropic(ev anthropic.MessageStreamEventUnion, on func(provider.Delta)) {
	switch ev.Type {
	case "content_block_start":
		if ev.ContentBlock.Type == "tool_use" {
			on(provider.Delta{Kind: provider.ToolUseStart, Index: int(ev.Index), Name: ev.ContentBlock.Name})
		}
	case "content_block_delta":
		switch ev.Delta.Type {
		case "text_delta":
			on(provider.Delta{Kind: provider.TextDelta, Index: int(ev.Index), Text: ev.Delta.Text})
		case "thinking_delta":
			on(provider.Delta{Kind: provider.ThinkingDelta, Index: int(ev.Index), Text: ev.Delta.Thinking})
		}
	}
}

// Params turns a neutral request into the SDK's parameters. The system
// prompt and the last tool definition carry cache breakpoints, so the
// prefix every turn repeats is read from the prompt cache.
func Params(req provider.Request) (anthropic.MessageNewParams, error) {
	tools, err := Tools(req.Tools)
	if err != nil {
		return anthropic.MessageNewParams{}, err
	}
	return params(req, tools)
}

func params(req provider.Request, tools []anthropic.ToolUnionParam) (anthropic.MessageNewParams, error) {
	p := anthropic.MessageNewParams{
		Model:     anthropic.Model(req.Model),
		MaxTokens: req.MaxTokens,
	}
	if p.MaxTokens == 0 {
		p.MaxTokens = provider.DefaultMaxTokens
	}
	if req.System != "" {
		p.System = []anthropic.TextBlockParam{{Text: req.System, CacheControl: anthropic.NewCacheControlEphemeralParam()}}
	}
	p.Tools = tools
	// Temperature is not sent: this API version's Messages parameters
	// have none.
	if req.Thinking.Budget > 0 {
		p.Thinking = anthropic.ThinkingConfigParamOfEnabled(req.Thinking.Budget)
		if p.MaxTokens <= req.Thinking.Budget {
			p.MaxTokens = req.Thinking.Budget + provider.DefaultMaxTokens
		}
	}
	for _, m := range req.Messages {
		blocks, err := anthropicBlocks(m)
		if err != nil {
			return p, err
		}
		if len(blocks) == 0 {
			continue // the API refuses an empty message
		}
		if m.Role == provider.Assistant {
			p.Messages = append(p.Messages, anthropic.NewAssistantMessage(blocks...))
		} else {
			p.Messages = append(p.Messages, anthropic.NewUserMessage(blocks...))
		}
	}
	return p, nil
}

// Tools turns tool definitions into the SDK's, the last one marked as the
// end of the cached prefix.
func Tools(defs []provider.ToolDef) ([]anthropic.ToolUnionParam, error) {
	out := make([]anthropic.ToolUnionParam, 0, len(defs))
	for i, d := range defs {
		// The schema's parts stay JSON text: decoding them into Go values
		// only for the SDK to encode them again is most of the cost of a
		// request with a dozen tools.
		var parts map[string]json.RawMessage
		var required []string
		if len(d.InputSchema) > 0 {
			if err := json.Unmarshal(d.InputSchema, &parts); err != nil {
				return nil, fmt.Errorf("tool %s: input schema: %w", d.Name, err)
			}
			if r, ok := parts["required"]; ok {
				if err := json.Unmarshal(r, &required); err != nil {
					return nil, fmt.Errorf("tool %s: input schema: required: %w", d.Name, err)
				}
			}
		}
		var props any
		if p, ok := parts["properties"]; ok {
			props = p
		}
		var extra map[string]any
		for k, v := range parts {
			switch k {
			case "type", "properties", "required":
				continue
			}
			if extra == nil {
				extra = make(map[string]any, len(parts))
			}
			extra[k] = v
		}
		t := &anthropic.ToolParam{
			Name:        d.Name,
			InputSchema: anthropic.ToolInputSchemaParam{Properties: props, Required: required, ExtraFields: extra},
		}
		if d.Description != "" {
			t.Description = anthropic.String(d.Description)
		}
		if i == len(defs)-1 {
			t.CacheControl = anthropic.NewCacheControlEphemeralParam()
		}
		out = append(out, anthropic.ToolUnionParam{OfTool: t})
	}
	return out, nil
}

// Message turns a neutral message into the SDK's.
func Message(m provider.Message) (anthropic.MessageParam, error) {
	blocks, err := anthropicBlocks(m)
	if err != nil {
		return anthropic.MessageParam{}, err
	}
	if m.Role == provider.Assistant {
		return anthropic.NewAssistantMessage(blocks...), nil
	}
	return anthropic.NewUserMessage(blocks...), nil
}

func anthropicBlocks(m provider.Message) ([]anthropic.ContentBlockParamUnion, error) {
	var blocks []anthropic.ContentBlockParamUnion
	for _, b := range m.Blocks {
		switch b.Kind {
		case provider.TextBlock:
			if b.Text != "" {
				blocks = append(blocks, anthropic.NewTextBlock(b.Text))
			}
		case provider.ThinkingBlock:
			if b.Signature != "" { // unsigned thinking (another provider's) cannot go back
				blocks = append(blocks, anthropic.NewThinkingBlock(b.Signature, b.Text))
			}
		case provider.RedactedThinkingBlock:
			if b.Data != "" {
				blocks = append(blocks, anthropic.NewRedactedThinkingBlock(b.Data))
			}
		case provider.ToolUseBlock:
			input := b.Input
			if _, broken := b.BrokenInput(); broken || len(input) == 0 {
				// The API takes only an object; the call was answered
				// with an error saying its arguments were broken.
				input = json.RawMessage(`{}`)
			}
			blocks = append(blocks, anthropic.NewToolUseBlock(b.ID, input, b.Name))
		case provider.ToolResultBlock:
			blocks = append(blocks, anthropic.NewToolResultBlock(b.ToolUseID, nonEmpty(b.Text), b.IsError))
		default:
			return nil, fmt.Errorf("unknown block kind %q", b.Kind)
		}
	}
	return blocks, nil
}

// FromMessage turns the SDK's message into a neutral response.
func FromMessage(msg *anthropic.Message) *provider.Response { return fromMessage(msg, nil) }

// fromMessage is FromMessage with the text of tool inputs that were not
// JSON, by content index, kept as broken input (see provider.Block).
func fromMessage(msg *anthropic.Message, broken map[int]string) *provider.Response {
	r := &provider.Response{Model: string(msg.Model), ID: msg.ID, Message: provider.Message{Role: provider.Assistant}}
	for i, c := range msg.Content {
		switch c.Type {
		case "text":
			r.Message.Blocks = append(r.Message.Blocks, provider.Block{Kind: provider.TextBlock, Text: c.Text})
		case "thinking":
			r.Message.Blocks = append(r.Message.Blocks, provider.Block{Kind: provider.ThinkingBlock, Text: c.Thinking, Signature: c.Signature})
		case "redacted_thinking":
			r.Message.Blocks = append(r.Message.Blocks, provider.Block{Kind: provider.RedactedThinkingBlock, Data: c.Data})
		case "tool_use":
			input := provider.ToolInput(c.Input)
			if text, ok := broken[i]; ok {
				input = provider.ToolInput([]byte(text))
			}
			r.Message.Blocks = append(r.Message.Blocks, provider.Block{Kind: provider.ToolUseBlock, ID: c.ID, Name: c.Name, Input: input})
		}
	}
	r.Stop = anthropicStop(string(msg.StopReason))
	r.Usage = provider.Usage{
		InputTokens:      msg.Usage.InputTokens,
		OutputTokens:     msg.Usage.OutputTokens,
		CacheReadTokens:  msg.Usage.CacheReadInputTokens,
		CacheWriteTokens: msg.Usage.CacheCreationInputTokens,
	}
	return r
}

func anthropicStop(s string) provider.StopReason {
	switch provider.StopReason(s) {
	case provider.StopEndTurn, provider.StopToolUse, provider.StopMaxTokens, provider.StopSequence, provider.StopRefusal,
		provider.StopPauseTurn:
		return provider.StopReason(s)
	}
	return provider.StopOther
}

// nonEmpty keeps a tool result from being sent empty, which the APIs
// refuse or models misread as a failed call.
func nonEmpty(s string) string {
	if s == "" {
		return "(no output)"
	}
	return s
}
