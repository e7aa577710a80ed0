package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"

	"github.com/indusagi/induscode/provider"
	"github.com/indusagi/induscode/provider/internal/toolcache"
)

// responsesClient speaks OpenAI's Responses API through openai-go's
// responses package.
//
// Every request is self-contained: it sends the whole conversation as
// input items with store false, so nothing is kept on OpenAI's side and
// no previous_response_id is needed (a transcript can be resumed
// anywhere, and zero-retention accounts, which cannot store, work the
// same). The model's reasoning survives between turns as the encrypted
// content of its reasoning items, asked for with include
// "reasoning.encrypted_content", kept in thinking blocks and sent back
// before the calls they led to.
type responsesClient struct {
	c     openai.Client
	tools toolcache.Cache[responses.ToolUnionParam]
	// plain holds the models that refused the encrypted reasoning
	// (models that do not reason): they are asked without it from then
	// on.
	plain sync.Map
}

// NewResponses returns a Responses API client of the server at e,
// without retries.
func NewResponses(e provider.Endpoint) provider.Client {
	opts := []option.RequestOption{option.WithAPIKey(e.APIKey), option.WithMaxRetries(0)}
	if e.BaseURL != "" {
		opts = append(opts, option.WithBaseURL(e.BaseURL))
	}
	if e.HTTPClient != nil {
		opts = append(opts, option.WithHTTPClient(e.HTTPClient))
	}
	return &responsesClient{c: openai.NewClient(opts...)}
}

func (o *responsesClient) Stream(ctx context.Context, req provider.Request, on func(provider.Delta)) (*provider.Response, error) {
	tools, err := o.tools.Get(req.Tools, ResponsesTools)
	if err != nil {
		return nil, err
	}
	params := responsesParams(req, tools)
	if _, plain := o.plain.Load(req.Model); plain {
		params.Include = nil
	}
	resp, err := o.stream(ctx, params, on)
	if err != nil && params.Include != nil && refusedEncrypted(err) {
		// A model that does not reason refuses the include; it has no
		// reasoning to carry, so it is asked again without.
		o.plain.Store(req.Model, true)
		params.Include = nil
		resp, err = o.stream(ctx, params, on)
	}
	return resp, err
}

func (o *responsesClient) stream(ctx context.Context, params responses.ResponseNewParams, on func(provider.Delta)) (*provider.Response, error) {
	stream := o.c.Responses.NewStreaming(ctx, params)
	defer stream.Close()
	var acc responsesAccumulator
	for stream.Next() {
		if err := acc.add(stream.Current(), on); err != nil {
			return nil, err
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, context.Cause(ctx)
	}
	if err := stream.Err(); err != nil {
		return nil, statusError(err)
	}
	if !acc.finished {
		return nil, fmt.Errorf("responses stream ended before response.completed: %w", io.ErrUnexpectedEOF)
	}
	return acc.response(), nil
}

// refusedEncrypted reports whether err is the API refusing the include of
// encrypted reasoning (a 400 about that parameter).
func refusedEncrypted(err error) bool {
	var oe *openai.Error
	if !errors.As(err, &oe) || oe.StatusCode != http.StatusBadRequest {
		return false
	}
	return oe.Param == "include" || strings.Contains(strings.ToLower(oe.Message), "encrypted content")
}

// ResponsesParams turns a neutral request into Responses API parameters.
func ResponsesParams(req provider.Request) (responses.ResponseNewParams, error) {
	tools, err := ResponsesTools(req.Tools)
	if err != nil {
		return responses.ResponseNewParams{}, err
	}
	return responsesParams(req, tools), nil
}

func responsesParams(req provider.Request, tools []responses.ToolUnionParam) responses.ResponseNewParams {
	p := responses.ResponseNewParams{
		Model:   shared.ResponsesModel(req.Model),
		Store:   openai.Bool(false),
		Include: []responses.ResponseIncludable{responses.ResponseIncludableReasoningEncryptedContent},
		Tools:   tools,
	}
	if req.System != "" {
		p.Instructions = openai.String(req.System)
	}
	if req.MaxTokens > 0 {
		p.MaxOutputTokens = openai.Int(req.MaxTokens)
	}
	if req.Thinking.Effort != "" {
		p.Reasoning = shared.ReasoningParam{Effort: shared.ReasoningEffort(req.Thinking.Effort), Summary: shared.ReasoningSummaryAuto}
	}
	if req.Temperature != nil {
		p.Temperature = openai.Float(*req.Temperature)
	}
	var items []responses.ResponseInputItemUnionParam
	for _, m := range req.Messages {
		items = append(items, InputItems(m)...)
	}
	p.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: items}
	return p
}

// ResponsesTools turns tool definitions into function tools. Strict is
// off: strict mode needs every property required and no extra keys,
// which tool schemas written for every API do not promise.
func ResponsesTools(defs []provider.ToolDef) ([]responses.ToolUnionParam, error) {
	out := make([]responses.ToolUnionParam, 0, len(defs))
	for _, d := range defs {
		var schema map[string]any
		if len(d.InputSchema) > 0 {
			if err := json.Unmarshal(d.InputSchema, &schema); err != nil {
				return nil, fmt.Errorf("tool %s: input schema: %w", d.Name, err)
			}
		}
		fn := responses.FunctionToolParam{Name: d.Name, Parameters: schema, Strict: openai.Bool(false)}
		if d.Description != "" {
			fn.Description = openai.String(d.Description)
		}
		out = append(out, responses.ToolUnionParam{OfFunction: &fn})
	}
	return out, nil
}

// InputItems turns one neutral message into input items: the user's text
// as a message, each tool_result a function_call_output; an assistant's
// reasoning items (thinking blocks that came from this API, with an item
// id and encrypted content), text as an output message and tool uses as
// function calls, in the order they came. Thinking of other providers
// cannot go back and is left out.
func InputItems(m provider.Message) []responses.ResponseInputItemUnionParam {
	var out []responses.ResponseInputItemUnionParam
	if m.Role == provider.Assistant {
		for _, b := range m.Blocks {
			switch b.Kind {
			case provider.ThinkingBlock:
				if !isReasoningItem(b) {
					continue
				}
				r := &responses.ResponseReasoningItemParam{ID: b.ID, EncryptedContent: openai.String(b.Data), Summary: []responses.ResponseReasoningItemSummaryParam{}}
				if b.Text != "" {
					r.Summary = append(r.Summary, responses.ResponseReasoningItemSummaryParam{Text: b.Text})
				}
				out = append(out, responses.ResponseInputItemUnionParam{OfReasoning: r})
			case provider.TextBlock:
				if b.Text != "" {
					out = append(out, responses.ResponseInputItemParamOfMessage(b.Text, responses.EasyInputMessageRoleAssistant))
				}
			case provider.ToolUseBlock:
				input := string(b.Input)
				if _, broken := b.BrokenInput(); broken || input == "" {
					input = "{}" // the call was answered with an error quoting them
				}
				out = append(out, responses.ResponseInputItemParamOfFunctionCall(input, b.ID, b.Name))
			}
		}
		return out
	}
	var text strings.Builder
	for _, b := range m.Blocks {
		switch b.Kind {
		case provider.ToolResultBlock:
			content := nonEmpty(b.Text)
			if b.IsError {
				content = "Error: " + content
			}
			out = append(out, responses.ResponseInputItemUnionParam{OfFunctionCallOutput: &responses.ResponseInputItemFunctionCallOutputParam{
				CallID: openai.String(b.ToolUseID),
				Output: responses.ResponseInputItemFunctionCallOutputOutputUnionParam{OfString: openai.String(content)},
			}})
		case provider.TextBlock:
			text.WriteString(b.Text)
		}
	}
	if text.Len() > 0 {
		out = append(out, responses.ResponseInputItemParamOfMessage(text.String(), responses.EasyInputMessageRoleUser))
	}
	return out
}

// isReasoningItem tells this API's reasoning (an item id and encrypted
// content, no signature) from another provider's thinking.
func isReasoningItem(b provider.Block) bool {
	return strings.HasPrefix(b.ID, "rs_") && b.Data != "" && b.Signature == ""
}

// responsesAccumulator assembles a stream's output items by their index:
// reasoning summaries, message text and function call arguments grow by
// deltas; each item's done event gives its whole form, which wins.
type responsesAccumulator struct {
	items    map[int64]*outputItem
	id       string // the response's id
	model    string
	status   string
	reason   string // incomplete_details.reason
	usage    responses.ResponseUsage
	finished bool
}

type outputItem struct {
	typ, id, callID, name string
	text, args            strings.Builder
	encrypted             string
	done                  bool
	refused               bool // the message is a refusal
}

func (a *responsesAccumulator) item(i int64) *outputItem {
	if a.items == nil {
		a.items = map[int64]*outputItem{}
	}
	it := a.items[i]
	if it == nil {
		it = &outputItem{}
		a.items[i] = it
	}
	return it
}

func (a *responsesAccumulator) add(ev responses.ResponseStreamEventUnion, on func(provider.Delta)) error {
	switch ev.Type {
	case "response.created", "response.in_progress":
		a.id, a.model = ev.Response.ID, string(ev.Response.Model)
	case "response.output_item.added":
		it := a.item(ev.OutputIndex)
		it.typ, it.id, it.callID, it.name = ev.Item.Type, ev.Item.ID, ev.Item.CallID, ev.Item.Name
		if it.typ == "function_call" && on != nil {
			on(provider.Delta{Kind: provider.ToolUseStart, Index: int(ev.OutputIndex), Name: it.name})
		}
	case "response.output_text.delta":
		a.item(ev.OutputIndex).text.WriteString(ev.Delta)
		if on != nil {
			on(provider.Delta{Kind: provider.TextDelta, Index: int(ev.OutputIndex), Text: ev.Delta})
		}
	case "response.refusal.delta":
		// A refusal is the model's answer: shown and kept as text.
		it := a.item(ev.OutputIndex)
		it.text.WriteString(ev.Delta)
		it.refused = true
		if on != nil {
			on(provider.Delta{Kind: provider.TextDelta, Index: int(ev.OutputIndex), Text: ev.Delta})
		}
	case "response.reasoning_summary_text.delta":
		a.item(ev.OutputIndex).text.WriteString(ev.Delta)
		if on != nil {
			on(provider.Delta{Kind: provider.ThinkingDelta, Index: int(ev.OutputIndex), Text: ev.Delta})
		}
	case "response.reasoning_summary_part.added":
		// Parts of a summary are paragraphs.
		if it := a.item(ev.OutputIndex); ev.SummaryIndex > 0 && it.text.Len() > 0 {
			it.text.WriteString("\n\n")
		}
	case "response.function_call_arguments.delta":
		a.item(ev.OutputIndex).args.WriteString(ev.Delta)
	case "response.output_item.done":
		a.itemDone(ev.OutputIndex, ev.Item)
	case "response.completed", "response.incomplete":
		a.finished = true
		a.status = string(ev.Response.Status)
		a.reason = ev.Response.IncompleteDetails.Reason
		a.usage = ev.Response.Usage
		if m := string(ev.Response.Model); m != "" {
			a.model = m
		}
	case "response.failed":
		return streamFailure(string(ev.Response.Error.Code), ev.Response.Error.Message, ev.RawJSON())
	case "error":
		return streamFailure(ev.Code, ev.Message, ev.RawJSON())
	}
	return nil
}

// itemDone takes an item's whole form from its done event.
func (a *responsesAccumulator) itemDone(i int64, item responses.ResponseOutputItemUnion) {
	it := a.item(i)
	it.typ, it.id, it.done = item.Type, item.ID, true
	switch item.Type {
	case "reasoning":
		var parts []string
		for _, s := range item.Summary {
			parts = append(parts, s.Text)
		}
		if len(parts) > 0 {
			it.text.Reset()
			it.text.WriteString(strings.Join(parts, "\n\n"))
		}
		it.encrypted = item.EncryptedContent
	case "message":
		var text strings.Builder
		for _, c := range item.Content {
			text.WriteString(c.Text)
			if c.Type == "refusal" {
				text.WriteString(c.Refusal)
				it.refused = true
			}
		}
		if text.Len() > 0 {
			it.text.Reset()
			it.text.WriteString(text.String())
		}
	case "function_call":
		it.callID, it.name = item.CallID, item.Name
		if item.JSON.Arguments.Valid() {
			it.args.Reset()
			it.args.WriteString(item.Arguments.OfString)
		}
	}
}

// streamFailure is an error the service reported in a stream that had
// begun, in the neutral form; its codes are given the names the retries
// know (a server error or overload is worth another attempt, when
// nothing was shown yet).
func streamFailure(code, message, raw string) error {
	typ := code
	switch code {
	case "server_error", "internal_error":
		typ = "api_error"
	case "rate_limit_exceeded":
		typ = "rate_limit_error"
	case "server_is_overloaded", "slow_down":
		typ = "overloaded_error"
	}
	if message == "" {
		message = raw
	}
	return &provider.StatusError{Code: 200, Type: typ, ErrorCode: code, Message: message, Err: fmt.Errorf("responses stream failed (%s)", code)}
}

func (a *responsesAccumulator) response() *provider.Response {
	r := &provider.Response{Model: a.model, ID: a.id, Message: provider.Message{Role: provider.Assistant}}
	idx := make([]int64, 0, len(a.items))
	for i := range a.items {
		idx = append(idx, i)
	}
	sort.Slice(idx, func(x, y int) bool { return idx[x] < idx[y] })
	calls, refused := 0, false
	for _, i := range idx {
		it := a.items[i]
		switch it.typ {
		case "reasoning":
			r.Message.Blocks = append(r.Message.Blocks, provider.Block{Kind: provider.ThinkingBlock, Text: it.text.String(), ID: it.id, Data: it.encrypted})
		case "message":
			refused = refused || it.refused
			if it.text.Len() > 0 {
				r.Message.Blocks = append(r.Message.Blocks, provider.Block{Kind: provider.TextBlock, Text: it.text.String()})
			}
		case "function_call":
			calls++
			r.Message.Blocks = append(r.Message.Blocks, provider.Block{Kind: provider.ToolUseBlock, ID: it.callID, Name: it.name,
				Input: provider.ToolInput([]byte(it.args.String()))})
		}
	}
	switch {
	case a.status == "incomplete" && a.reason == "max_output_tokens":
		r.Stop = provider.StopMaxTokens
	case a.status == "incomplete" && a.reason == "content_filter", refused:
		r.Stop = provider.StopRefusal
	case calls > 0:
		r.Stop = provider.StopToolUse
	case a.status == "completed":
		r.Stop = provider.StopEndTurn
	default:
		r.Stop = provider.StopOther
	}
	cached := a.usage.InputTokensDetails.CachedTokens
	r.Usage = provider.Usage{
		InputTokens:     a.usage.InputTokens - cached,
		OutputTokens:    a.usage.OutputTokens,
		CacheReadTokens: cached,
	}
	return r
}
