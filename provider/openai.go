package provider

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"
)

// openaiClient speaks Chat Completions through openai-go, to OpenAI or any
// server that speaks the same API at its base URL.
type openaiClient struct {
	c     openai.Client
	tools toolCache[openai.ChatCompletionToolUnionParam]
}

func newOpenAI(cn conn) *openaiClient {
	opts := []option.RequestOption{option.WithAPIKey(cn.key), option.WithMaxRetries(0)}
	if cn.base != "" {
		opts = append(opts, option.WithBaseURL(cn.base))
	}
	if cn.http != nil {
		opts = append(opts, option.WithHTTPClient(cn.http))
	}
	return &openaiClient{c: openai.NewClient(opts...)}
}

func (o *openaiClient) Stream(ctx context.Context, req Request, on func(Delta)) (*Response, error) {
	tools, err := o.tools.get(req.Tools, OpenAITools)
	if err != nil {
		return nil, err
	}
	params, err := openAIParams(req, tools)
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
		return nil, err
	}
	if acc.id == "" {
		return nil, fmt.Errorf("chat completions stream ended without a chunk")
	}
	return acc.response(), nil
}

// chatAccumulator assembles one choice's chunks: text, reasoning (the
// reasoning_content field of compatible servers), tool calls by index,
// the finish reason and the usage chunk that include_usage adds.
type chatAccumulator struct {
	id, model, finish string
	text, reasoning   string
	calls             []chatCall
	usage             openai.CompletionUsage
}

type chatCall struct{ id, name, args string }

func (a *chatAccumulator) add(ch openai.ChatCompletionChunk, on func(Delta)) {
	a.id, a.model = ch.ID, ch.Model
	if ch.JSON.Usage.Valid() && ch.Usage.JSON.PromptTokens.Valid() {
		a.usage = ch.Usage
	}
	for _, c := range ch.Choices {
		if c.Index != 0 {
			continue
		}
		d := c.Delta
		if d.Content != "" {
			a.text += d.Content
			if on != nil {
				on(Delta{Kind: TextDelta, Text: d.Content})
			}
		}
		if f, ok := d.JSON.ExtraFields["reasoning_content"]; ok {
			var s string
			if json.Unmarshal([]byte(f.Raw()), &s) == nil && s != "" {
				a.reasoning += s
				if on != nil {
					on(Delta{Kind: ThinkingDelta, Text: s})
				}
			}
		}
		for _, tc := range d.ToolCalls {
			i := int(tc.Index)
			if i < 0 || i > len(a.calls) {
				continue // a gap: not a stream any server sends
			}
			if i == len(a.calls) {
				a.calls = append(a.calls, chatCall{})
			}
			call := &a.calls[i]
			if tc.ID != "" {
				call.id = tc.ID
			}
			if tc.Function.Name != "" {
				call.name += tc.Function.Name
				if on != nil {
					on(Delta{Kind: ToolUseStart, Index: i + 1, Name: tc.Function.Name})
				}
			}
			call.args += tc.Function.Arguments
		}
		if c.FinishReason != "" {
			a.finish = c.FinishReason
		}
	}
}

func (a *chatAccumulator) response() *Response {
	r := &Response{Model: a.model, Message: Message{Role: Assistant}}
	if a.reasoning != "" {
		r.Message.Blocks = append(r.Message.Blocks, Block{Kind: ThinkingBlock, Text: a.reasoning})
	}
	if a.text != "" {
		r.Message.Blocks = append(r.Message.Blocks, Block{Kind: TextBlock, Text: a.text})
	}
	for i, c := range a.calls {
		args := json.RawMessage(c.args)
		if len(args) == 0 {
			args = json.RawMessage(`{}`)
		}
		id := c.id
		if id == "" {
			id = fmt.Sprintf("call_%d", i) // some local servers send none
		}
		r.Message.Blocks = append(r.Message.Blocks, Block{Kind: ToolUseBlock, ID: id, Name: c.name, Input: args})
	}
	switch a.finish {
	case "stop":
		r.Stop = StopEndTurn
	case "tool_calls", "function_call":
		r.Stop = StopToolUse
	case "length":
		r.Stop = StopMaxTokens
	case "content_filter":
		r.Stop = StopRefusal
	default:
		r.Stop = StopOther
	}
	if len(a.calls) > 0 && r.Stop != StopMaxTokens {
		r.Stop = StopToolUse // servers that say "stop" after calls
	}
	cached := a.usage.PromptTokensDetails.CachedTokens
	r.Usage = Usage{
		InputTokens:     a.usage.PromptTokens - cached,
		OutputTokens:    a.usage.CompletionTokens,
		CacheReadTokens: cached,
	}
	return r
}

// OpenAIParams turns a neutral request into Chat Completions parameters:
// the system prompt is the first message, each tool_result block its own
// tool message, and streaming asks for the usage chunk.
func OpenAIParams(req Request) (openai.ChatCompletionNewParams, error) {
	tools, err := OpenAITools(req.Tools)
	if err != nil {
		return openai.ChatCompletionNewParams{}, err
	}
	return openAIParams(req, tools)
}

func openAIParams(req Request, tools []openai.ChatCompletionToolUnionParam) (openai.ChatCompletionNewParams, error) {
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
		p.Messages = append(p.Messages, OpenAIMessages(m)...)
	}
	return p, nil
}

// OpenAITools turns tool definitions into function tools.
func OpenAITools(defs []ToolDef) ([]openai.ChatCompletionToolUnionParam, error) {
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

// OpenAIMessages turns one neutral message into Chat Completions
// messages: an assistant message with its tool calls, or the user's text
// and one tool message per tool_result. Thinking is not sent back.
func OpenAIMessages(m Message) []openai.ChatCompletionMessageParamUnion {
	if m.Role == Assistant {
		var a openai.ChatCompletionAssistantMessageParam
		if t := m.Text(); t != "" {
			a.Content.OfString = openai.String(t)
		}
		for _, b := range m.ToolUses() {
			input := string(b.Input)
			if input == "" {
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
		case ToolResultBlock:
			content := nonEmpty(b.Text)
			if b.IsError {
				content = "Error: " + content
			}
			out = append(out, openai.ToolMessage(content, b.ToolUseID))
		case TextBlock:
			text += b.Text
		}
	}
	if text != "" {
		out = append(out, openai.UserMessage(text))
	}
	return out
}
