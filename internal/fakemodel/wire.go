package fakemodel

import (
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"time"
)

// signature is the fake's proof that a thinking text is the model's, as
// the Messages API signs thinking: a request that sends the text back
// changed, or with another signature, is refused.
func signature(text string) string {
	sum := sha256.Sum256([]byte("fakemodel thinking\x00" + text))
	return "EqQB" + base64.StdEncoding.EncodeToString(sum[:])
}

func (s *Server) signed(text, sig string) bool { return sig == signature(text) }

// writeAnthropic streams r as the Messages API does: message_start, a
// ping, each block's start, deltas and stop, message_delta with the stop
// reason and output usage, message_stop.
func writeAnthropic(s *sse, model string, r Reply, n int) {
	id := fmt.Sprintf("msg_%02dFAKE%s", n, "0123456789abcdefghij")
	in := tokens(r.InputTokens, 42)
	s.event("message_start", fmt.Sprintf(`{"type":"message_start","message":{"model":%s,"id":%q,"type":"message","role":"assistant","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":%d,"cache_creation_input_tokens":%d,"cache_read_input_tokens":%d,"cache_creation":{"ephemeral_5m_input_tokens":%d,"ephemeral_1h_input_tokens":0},"output_tokens":1,"service_tier":"standard"}}}`,
		js(model), id, in, r.CacheWrite, r.CacheRead, r.CacheWrite))
	s.event("ping", `{"type": "ping"}`)
	for i, b := range r.Blocks {
		switch b.Kind {
		case "thinking":
			s.event("content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"thinking","thinking":"","signature":""}}`, i))
			for _, part := range split(b.Text, 24) {
				s.event("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"thinking_delta","thinking":%s}}`, i, js(part)))
			}
			s.event("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"signature_delta","signature":%q}}`, i, signature(b.Text)))
		case "redacted_thinking":
			s.event("content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"redacted_thinking","data":%s}}`, i, js(b.Text)))
		case "tool_use":
			s.event("content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"tool_use","id":%q,"name":%s,"input":{}}}`, i, toolID("anthropic", n, i, b), js(b.Name)))
			s.event("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"input_json_delta","partial_json":""}}`, i))
			for _, part := range split(b.Input, 7) {
				s.event("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"input_json_delta","partial_json":%s}}`, i, js(part)))
			}
		default:
			s.event("content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"text","text":""}}`, i))
			for _, part := range split(b.Text, 16) {
				if !s.pace(r.Pace) {
					return
				}
				s.event("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"text_delta","text":%s}}`, i, js(part)))
			}
		}
		s.event("content_block_stop", fmt.Sprintf(`{"type":"content_block_stop","index":%d}`, i))
		if i == 0 {
			if r.Cut {
				s.cut()
			}
			if r.EndEarly {
				return
			}
			if r.StreamError != "" {
				s.event("error", fmt.Sprintf(`{"type":"error","error":{"details":null,"type":%q,"message":"Overloaded"},"request_id":"req_fake"}`, r.StreamError))
				return
			}
			if !s.hold(r.Hold) {
				return
			}
		}
	}
	if len(r.Blocks) == 0 && !s.hold(r.Hold) {
		return
	}
	s.event("message_delta", fmt.Sprintf(`{"type":"message_delta","delta":{"stop_reason":%q,"stop_sequence":null},"usage":{"input_tokens":%d,"cache_creation_input_tokens":%d,"cache_read_input_tokens":%d,"output_tokens":%d}}`,
		stopOf(r), in, r.CacheWrite, r.CacheRead, tokens(r.OutputTokens, 17)))
	s.event("message_stop", `{"type":"message_stop"}`)
}

// writeOpenAI streams r as Chat Completions does: a role chunk, content
// chunks, tool call chunks (the first with id, type and name, then the
// arguments in pieces), a chunk with finish_reason, the usage chunk with
// empty choices (stream_options.include_usage), and [DONE]. Thinking is
// sent as reasoning_content, as compatible servers do.
func writeOpenAI(s *sse, model string, r Reply, n int) {
	id := fmt.Sprintf("chatcmpl-%02dFAKE%s", n, "0123456789abcdefghijkl")
	created := time.Now().Unix()
	head := fmt.Sprintf(`{"id":%q,"object":"chat.completion.chunk","created":%d,"model":%s,"service_tier":"default","system_fingerprint":"fp_fake0001",`, id, created, js(model))
	chunk := func(delta, finish string) {
		s.event("", head+fmt.Sprintf(`"choices":[{"index":0,"delta":%s,"logprobs":null,"finish_reason":%s}],"usage":null,"obfuscation":"Qx"}`, delta, finish))
	}
	chunk(`{"role":"assistant","content":"","refusal":null}`, "null")
	call := 0
	for i, b := range r.Blocks {
		switch b.Kind {
		case "thinking":
			for _, part := range split(b.Text, 24) {
				chunk(fmt.Sprintf(`{"reasoning_content":%s}`, js(part)), "null")
			}
		case "redacted_thinking":
			// Chat Completions has no such block.
		case "tool_use":
			chunk(fmt.Sprintf(`{"tool_calls":[{"index":%d,"id":%q,"type":"function","function":{"name":%s,"arguments":""}}]}`, call, toolID("openai", n, i, b), js(b.Name)), "null")
			for _, part := range split(b.Input, 7) {
				chunk(fmt.Sprintf(`{"tool_calls":[{"index":%d,"function":{"arguments":%s}}]}`, call, js(part)), "null")
			}
			call++
		default:
			for _, part := range split(b.Text, 16) {
				chunk(fmt.Sprintf(`{"content":%s}`, js(part)), "null")
			}
		}
		if i == 0 && r.Cut {
			s.cut()
		}
		if i == 0 && r.EndEarly {
			return
		}
		if i == 0 && r.StreamError != "" {
			// Compatible servers (and OpenAI's own) report a failure
			// mid-stream as a chunk holding only the error.
			s.event("", `{"error":{"message":"The server had an error while processing your request. Sorry about that!","type":"server_error","param":null,"code":null}}`)
			return
		}
		if i == 0 && !s.hold(r.Hold) {
			return
		}
	}
	if len(r.Blocks) == 0 && !s.hold(r.Hold) {
		return
	}
	finish := map[string]string{"end_turn": "stop", "tool_use": "tool_calls", "max_tokens": "length", "refusal": "content_filter"}[stopOf(r)]
	if finish == "" {
		finish = "stop"
	}
	chunk(`{}`, js(finish))
	in := tokens(r.InputTokens, 42) + r.CacheRead
	out := tokens(r.OutputTokens, 17)
	s.event("", head+fmt.Sprintf(`"choices":[],"usage":{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d,"prompt_tokens_details":{"cached_tokens":%d,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}},"obfuscation":"Qx"}`,
		in, out, in+out, r.CacheRead))
	s.event("", "[DONE]")
}
