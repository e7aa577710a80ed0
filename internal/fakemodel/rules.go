package fakemodel

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// refusal is a request the real service would not take: the status, the
// error's type and code in the API's words, and its message.
type refusal struct {
	status    int
	typ, code string
	msg       string
	param     string // the request's field at fault, when not the default one
}

// check applies the API's rules to a request body, as the services apply
// them before any token is generated, and returns the refusal or nil.
// The rules are the ones an agent loop can break: the shape of tool use
// in the history, the order of roles, the thinking blocks of a tool loop
// and the context window (window tokens; 0 means no limit).
func (s *Server) check(api string, body []byte, window int64) *refusal {
	var r *refusal
	switch api {
	case "anthropic":
		r = s.checkAnthropic(body)
	case "responses":
		r = checkResponses(body)
	case "gemini":
		r = checkGemini(body)
	default:
		r = checkOpenAI(body)
	}
	if r != nil {
		return r
	}
	if n := estimate(body); window > 0 && n > window {
		switch api {
		case "anthropic":
			return &refusal{status: http.StatusBadRequest, typ: "invalid_request_error",
				msg: fmt.Sprintf("prompt is too long: %d tokens > %d maximum", n, window)}
		case "gemini":
			return invalid("The input token count (%d) exceeds the maximum number of tokens allowed (%d).", n, window)
		case "responses":
			return &refusal{status: http.StatusBadRequest, typ: "invalid_request_error", code: "context_length_exceeded",
				msg: "Your input exceeds the context window of this model. Please adjust your input and try again."}
		}
		return &refusal{status: http.StatusBadRequest, typ: "invalid_request_error", code: "context_length_exceeded",
			msg: fmt.Sprintf("This model's maximum context length is %d tokens. However, your messages resulted in %d tokens. Please reduce the length of the messages.", window, n)}
	}
	return nil
}

// estimate is the fake's token count of a request: a quarter of its
// bytes, about what the services' tokenizers make of English and code.
func estimate(body []byte) int64 { return int64(len(body)) / 4 }

// anthropicBlock is a content block of a request as the fake reads it.
type anthropicBlock struct {
	Type      string          `json:"type"`
	ID        string          `json:"id"`
	ToolUseID string          `json:"tool_use_id"`
	Thinking  string          `json:"thinking"`
	Signature string          `json:"signature"`
	Data      string          `json:"data"`
	Input     json.RawMessage `json:"input"`
	Text      *string         `json:"text"`
}

func invalid(format string, a ...any) *refusal {
	return &refusal{status: http.StatusBadRequest, typ: "invalid_request_error", msg: fmt.Sprintf(format, a...)}
}

func (s *Server) checkAnthropic(body []byte) *refusal {
	var req struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
		Tools    []json.RawMessage `json:"tools"`
		Thinking *struct {
			Type string `json:"type"`
		} `json:"thinking"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return invalid("The request body is not valid JSON: %v", err)
	}
	if len(req.Messages) == 0 {
		return invalid("messages: at least one message is required")
	}
	msgs := make([][]anthropicBlock, len(req.Messages))
	for i, m := range req.Messages {
		if m.Role != "user" && m.Role != "assistant" {
			return invalid("messages.%d.role: Input should be 'user' or 'assistant'", i)
		}
		var text string
		if json.Unmarshal(m.Content, &text) == nil {
			msgs[i] = []anthropicBlock{{Type: "text", Text: &text}}
		} else if err := json.Unmarshal(m.Content, &msgs[i]); err != nil {
			return invalid("messages.%d.content: Input should be a valid list", i)
		}
		if len(msgs[i]) == 0 && !(i == len(msgs)-1 && m.Role == "assistant") {
			return invalid("messages.%d: all messages must have non-empty content except for the optional final assistant message", i)
		}
		switch {
		case i == 0 && m.Role != "user":
			return invalid("messages.0.role: the first message must use the \"user\" role")
		case i > 0 && m.Role == req.Messages[i-1].Role:
			return invalid("messages.%d: roles must alternate between \"user\" and \"assistant\", but found two %q messages in a row", i, m.Role)
		}
	}
	for i, blocks := range msgs {
		for j, b := range blocks {
			switch b.Type {
			case "tool_use", "tool_result":
				if len(req.Tools) == 0 {
					return invalid("Requests which include `tool_use` or `tool_result` blocks must define tools.")
				}
			case "thinking":
				if !s.signed(b.Thinking, b.Signature) {
					return invalid("messages.%d.content.%d: Invalid `signature` in `thinking` block", i, j)
				}
			case "text":
				if b.Text == nil || *b.Text == "" {
					return invalid("messages.%d.content.%d: text content blocks must be non-empty", i, j)
				}
			}
			if b.Type == "tool_use" && len(b.Input) > 0 && b.Input[0] != '{' {
				return invalid("messages.%d.content.%d.tool_use.input: Input should be a valid dictionary", i, j)
			}
		}
		if req.Messages[i].Role != "assistant" {
			continue
		}
		var ids []string
		for _, b := range blocks {
			if b.Type == "tool_use" {
				ids = append(ids, b.ID)
			}
		}
		if len(ids) == 0 {
			continue
		}
		var next []anthropicBlock
		if i+1 < len(msgs) {
			next = msgs[i+1]
		}
		answered := map[string]bool{}
		for _, b := range next {
			if b.Type == "tool_result" {
				answered[b.ToolUseID] = true
			}
		}
		var missing []string
		for _, id := range ids {
			if !answered[id] {
				missing = append(missing, id)
			}
		}
		if len(missing) > 0 {
			return invalid("messages.%d: `tool_use` ids were found without `tool_result` blocks immediately after: %s. Each `tool_use` block must have a corresponding `tool_result` block in the next message.", i, strings.Join(missing, ", "))
		}
	}
	// Every tool_result answers a tool_use of the message before it.
	for i, blocks := range msgs {
		for j, b := range blocks {
			if b.Type != "tool_result" {
				continue
			}
			found := false
			if i > 0 {
				for _, u := range msgs[i-1] {
					found = found || (u.Type == "tool_use" && u.ID == b.ToolUseID)
				}
			}
			if !found {
				return invalid("messages.%d.content.%d: unexpected `tool_use_id` found in `tool_result` blocks: %s. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.", i, j, b.ToolUseID)
			}
		}
	}
	// With thinking on, the assistant message that the tool results of
	// the last user message answer must start with its thinking, sent
	// back as it came.
	if req.Thinking != nil && req.Thinking.Type == "enabled" && len(msgs) >= 2 {
		last := msgs[len(msgs)-1]
		if len(last) > 0 && last[0].Type == "tool_result" {
			i := len(msgs) - 2
			if first := msgs[i][0].Type; first != "thinking" && first != "redacted_thinking" {
				return invalid("messages.%d.content.0.type: Expected `thinking` or `redacted_thinking`, but found `%s`. With thinking enabled, the assistant message before tool results must start with its thinking blocks, sent back unchanged.", i, first)
			}
		}
	}
	return nil
}

func checkOpenAI(body []byte) *refusal {
	var req struct {
		Messages []struct {
			Role      string `json:"role"`
			ToolCalls []struct {
				ID string `json:"id"`
			} `json:"tool_calls"`
			ToolCallID string `json:"tool_call_id"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return invalid("We could not parse the JSON body of your request.")
	}
	if len(req.Messages) == 0 {
		return &refusal{status: http.StatusBadRequest, typ: "invalid_request_error", code: "empty_array",
			msg: "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead."}
	}
	var open []string // tool calls of the last assistant message not yet answered
	for i, m := range req.Messages {
		if m.Role != "tool" && len(open) > 0 {
			return invalid("An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: %s", strings.Join(open, ", "))
		}
		switch m.Role {
		case "assistant":
			open = open[:0]
			for _, c := range m.ToolCalls {
				open = append(open, c.ID)
			}
		case "tool":
			k := -1
			for n, id := range open {
				if id == m.ToolCallID {
					k = n
				}
			}
			if k < 0 {
				return invalid("Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'. (messages.[%d])", i)
			}
			open = append(open[:k], open[k+1:]...)
		case "system", "developer", "user":
		default:
			return invalid("Invalid value: '%s'. Supported values are: 'system', 'assistant', 'user', 'tool', 'function' and 'developer'. (messages.[%d].role)", m.Role, i)
		}
	}
	if len(open) > 0 {
		return invalid("An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: %s", strings.Join(open, ", "))
	}
	return nil
}
