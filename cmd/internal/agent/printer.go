package agent

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/indusagi/induscode/conductor"
	"github.com/indusagi/induscode/provider"
)

// NewPrinter returns a printer of the run in format ("text", "json" or
// "stream-json") to stdout, with notices (and with verbose the tool calls)
// on stderr.
func NewPrinter(stdout, stderr io.Writer, format string, verbose bool) *Printer {
	return &Printer{w: bufio.NewWriter(stdout), stderr: stderr, format: format, verbose: verbose}
}

// SetSession names the session that later lines carry.
func (p *Printer) SetSession(id string) { p.session = id }

// Flush writes out what is buffered.
func (p *Printer) Flush() error { return p.w.Flush() }

// Printer shows a run in one of the output formats (text, json,
// stream-json). Its methods are called from one goroutine at a time.
type Printer struct {
	w       *bufio.Writer
	stderr  io.Writer
	format  string
	verbose bool
	session string
}

func (p *Printer) line(v any) {
	b, _ := json.Marshal(v)
	p.w.Write(b)
	p.w.WriteByte('\n')
	p.w.Flush() // each message as it happens, for a reader following the stream
}

// Event shows one event of the run as it happens.
func (p *Printer) Event(e conductor.Event) { p.event(e, nil, "") }

// event shows e; a subagent's messages carry the parent's tool use id
// (parent, nil for the main agent's) and, in verbose text, its name.
func (p *Printer) event(e conductor.Event, parent any, agent string) {
	who := ""
	if agent != "" {
		who = "[" + agent + "] "
	}
	switch e := e.(type) {
	case conductor.SubagentEvent:
		p.event(e.Event, e.ToolUseID, e.Agent)
	case conductor.Started:
		p.session = e.SessionID
		if p.format == "stream-json" {
			// skills and slash_commands are the skills the user can run
			// as /id; there are no built-in commands in -p.
			skills := append([]string{}, e.Skills...)
			p.line(map[string]any{"type": "system", "subtype": "init", "session_id": e.SessionID, "cwd": e.Dir,
				"tools": e.Tools, "model": e.Model, "permissionMode": e.Mode, "mcp_servers": []any{},
				"skills": skills, "slash_commands": skills})
		}
	case conductor.AssistantMessage:
		if p.format == "stream-json" {
			p.line(map[string]any{"type": "assistant", "session_id": p.session, "parent_tool_use_id": parent, "message": map[string]any{
				"type": "message", "role": "assistant", "model": e.Model, "content": claudeBlocks(e.Message.Blocks),
				"stop_reason": e.Stop, "usage": e.Usage}})
		} else if p.verbose {
			for _, b := range e.Message.ToolUses() {
				fmt.Fprintf(p.stderr, "%s→ %s %s\n", who, b.Name, clip(string(b.Input), 200))
			}
		}
	case conductor.ToolResults:
		if p.format == "stream-json" {
			p.line(map[string]any{"type": "user", "session_id": p.session, "parent_tool_use_id": parent, "message": map[string]any{
				"role": "user", "content": claudeBlocks(e.Message.Blocks)}})
		} else if p.verbose {
			for _, b := range e.Message.Blocks {
				mark := "←"
				if b.IsError {
					mark = "← error:"
				}
				fmt.Fprintf(p.stderr, "%s%s %s\n", who, mark, clip(b.Text, 200))
			}
		}
	case conductor.Notice:
		if p.format != "stream-json" || p.verbose {
			fmt.Fprintln(p.stderr, "indusr:", e.Text)
		}
	case conductor.Compacted:
		if p.format == "stream-json" {
			p.line(map[string]any{"type": "system", "subtype": "compact_boundary", "session_id": p.session})
		}
	}
}

// Result shows how the run ended.
func (p *Printer) Result(r *conductor.Result) {
	if p.format == "text" {
		if r.IsError {
			fmt.Fprintln(p.stderr, "indusr:", r.Text)
			return
		}
		p.w.WriteString(strings.TrimRight(r.Text, "\n") + "\n")
		return
	}
	p.line(map[string]any{
		"type": "result", "subtype": r.Subtype, "is_error": r.IsError,
		"duration_ms": r.Duration.Milliseconds(), "num_turns": r.Turns,
		"result": r.Text, "session_id": p.session, "total_cost_usd": r.Cost, "usage": r.Usage,
		"subagent_stats": map[string]any{"runs": r.Subagents.Runs, "failed": r.Subagents.Failed,
			"num_turns": r.Subagents.Turns, "total_cost_usd": r.Subagents.Cost, "usage": r.Subagents.Usage},
	})
}

// claudeBlocks writes content blocks as Claude Code's messages carry them.
func claudeBlocks(bs []provider.Block) []map[string]any {
	out := make([]map[string]any, 0, len(bs))
	for _, b := range bs {
		switch b.Kind {
		case provider.TextBlock:
			out = append(out, map[string]any{"type": "text", "text": b.Text})
		case provider.ThinkingBlock:
			if b.Text == "" {
				continue // reasoning kept only to be sent back (OpenAI's without a summary): nothing to show
			}
			out = append(out, map[string]any{"type": "thinking", "thinking": b.Text, "signature": b.Signature})
		case provider.ToolUseBlock:
			out = append(out, map[string]any{"type": "tool_use", "id": b.ID, "name": b.Name, "input": b.Input})
		case provider.ToolResultBlock:
			out = append(out, map[string]any{"type": "tool_result", "tool_use_id": b.ToolUseID, "content": b.Text, "is_error": b.IsError})
		}
	}
	return out
}

func clip(s string, n int) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
