package agent

import (
	"github.com/indusagi/induscode/conductor"
	"github.com/indusagi/induscode/provider"
)

// partial writes the model's answer as it streams, as the Messages API's
// stream events (message_start, content_block_start, _delta, _stop,
// message_delta, message_stop) in stream_event lines
// (--include-partial-messages). The providers hand the conductor pieces
// of text, reasoning and the names of tools being called, whatever the
// API; the events are made from those, so an OpenAI-compatible model
// streams the same events as Anthropic's. A tool call's input arrives
// whole, with the message: each call's block stays open until then, and
// gets its input as one input_json_delta before its content_block_stop.
type partial struct {
	started bool
	open    bool               // a content block is open
	kind    provider.DeltaKind // the open block's kind
	src     int                // the provider's index of the open block
	index   int                // the open block's index in the events
	blocks  int                // blocks started in this message
	tools   []int              // the indexes of the tool calls' blocks
}

// delta turns one streamed piece into events.
func (p *Printer) delta(d provider.Delta) {
	s := &p.stream
	if !s.started {
		s.started = true
		p.sendEvent(map[string]any{"type": "message_start", "message": map[string]any{
			"model": p.model, "id": "", "type": "message", "role": "assistant", "content": []any{},
			"stop_reason": nil, "stop_sequence": nil, "usage": provider.Usage{}}})
	}
	if !s.open || d.Kind == provider.ToolUseStart || d.Kind != s.kind || d.Index != s.src {
		p.closeBlock()
		s.open, s.kind, s.src, s.index = true, d.Kind, d.Index, s.blocks
		s.blocks++
		if d.Kind == provider.ToolUseStart {
			s.tools = append(s.tools, s.index)
		}
		var block map[string]any
		switch d.Kind {
		case provider.ThinkingDelta:
			block = map[string]any{"type": "thinking", "thinking": "", "signature": ""}
		case provider.ToolUseStart:
			block = map[string]any{"type": "tool_use", "id": "", "name": d.Name, "input": map[string]any{}}
		default:
			block = map[string]any{"type": "text", "text": ""}
		}
		p.sendEvent(map[string]any{"type": "content_block_start", "index": s.index, "content_block": block})
	}
	switch d.Kind {
	case provider.TextDelta:
		p.sendEvent(map[string]any{"type": "content_block_delta", "index": s.index, "delta": map[string]any{"type": "text_delta", "text": d.Text}})
	case provider.ThinkingDelta:
		p.sendEvent(map[string]any{"type": "content_block_delta", "index": s.index, "delta": map[string]any{"type": "thinking_delta", "thinking": d.Text}})
	}
}

// finish ends the streamed message: the open block (a tool call's with
// its input), message_delta with the stop reason and usage,
// message_stop.
func (p *Printer) finish(m conductor.AssistantMessage) {
	s := &p.stream
	if !s.started {
		return
	}
	p.closeBlock()
	uses := m.Message.ToolUses()
	for i, at := range s.tools {
		if i < len(uses) {
			p.sendEvent(map[string]any{"type": "content_block_delta", "index": at,
				"delta": map[string]any{"type": "input_json_delta", "partial_json": string(uses[i].Input)}})
		}
		p.sendEvent(map[string]any{"type": "content_block_stop", "index": at})
	}
	p.sendEvent(map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": m.Stop, "stop_sequence": nil},
		"usage": m.Usage})
	p.sendEvent(map[string]any{"type": "message_stop"})
	p.stream = partial{}
}

// closeBlock ends the open block, but a tool call's, which ends with
// the message (see finish).
func (p *Printer) closeBlock() {
	s := &p.stream
	if s.open && s.kind != provider.ToolUseStart {
		p.sendEvent(map[string]any{"type": "content_block_stop", "index": s.index})
	}
	s.open = false
}

func (p *Printer) sendEvent(e map[string]any) {
	p.line(streamEvent{Type: "stream_event", Event: e, SessionID: p.session, UUID: newUUID()})
}
