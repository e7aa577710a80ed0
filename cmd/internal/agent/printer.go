package agent

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/indusagi/induscode/conductor"
	"github.com/indusagi/induscode/conductor/toolrun"
	"github.com/indusagi/induscode/provider"
)

// NewPrinter returns a printer of the run in format ("text", "json" or
// "stream-json") to stdout, with notices (and with verbose the tool calls)
// on stderr.
func NewPrinter(stdout, stderr io.Writer, format string, verbose bool) *Printer {
	return &Printer{w: bufio.NewWriter(stdout), stderr: stderr, format: format, verbose: verbose,
		uses: map[string]provider.Block{}, now: time.Now}
}

// SetSession names the session that later lines carry.
func (p *Printer) SetSession(id string) { p.session = id }

// Flush writes out what is buffered.
func (p *Printer) Flush() error { return p.w.Flush() }

// Printer shows a run in one of the output formats (text, json,
// stream-json). Its methods are called from one goroutine at a time.
type Printer struct {
	// Init is what system/init says beyond the conductor's Started.
	Init Init
	// Partial writes the model's answer as it streams, in stream_event
	// lines (stream-json only).
	Partial bool

	w       *bufio.Writer
	stderr  io.Writer
	format  string
	verbose bool
	session string
	// model is the model of the streamed message's message_start: the
	// last that answered, else the one asked for.
	model string
	dir   string
	// uses are the tool calls not yet answered, by id, for the results
	// that answer them (a subagent's run between a call and its result).
	uses    map[string]provider.Block
	results int // results printed, for result_index
	stream  partial
	now     func() time.Time
}

// Init is what system/init says of the session beyond what the
// conductor reports as the run starts.
type Init struct {
	// APIKeySource names where the model's key came from: the
	// environment variable, or "none" for a server that needs none.
	APIKeySource string
	// MCPServers, Agents and Plugins are added to the session's own
	// (Started): servers, subagents and addons that a host provides.
	MCPServers []MCPServer
	Agents     []string
	Plugins    []Plugin
	// Capabilities are the control protocol features the process
	// answers on standard input.
	Capabilities []string
}

func (p *Printer) line(v any) {
	b, _ := json.Marshal(v)
	p.w.Write(b)
	p.w.WriteByte('\n')
	p.w.Flush() // each message as it happens, for a reader following the stream
}

func (p *Printer) header(parent *string) header {
	return header{Parent: parent, SessionID: p.session, UUID: newUUID(), Timestamp: stamp(p.now())}
}

// Event shows one event of the run as it happens.
func (p *Printer) Event(e conductor.Event) { p.event(e, nil, "") }

// event shows e; a subagent's messages carry the parent's tool use id
// (parent, nil for the main agent's) and, in verbose text, its name.
// Only the main agent's answer streams in stream_event lines.
func (p *Printer) event(e conductor.Event, parent *string, agent string) {
	stream := p.format == "stream-json"
	who := ""
	if agent != "" {
		who = "[" + agent + "] "
	}
	switch e := e.(type) {
	case conductor.SubagentEvent:
		switch e.Event.(type) {
		case conductor.Started, conductor.Compacted:
			// The session, its init and its boundaries are the main
			// agent's; a subagent shows as its messages.
		default:
			id := e.ToolUseID
			p.event(e.Event, &id, e.Agent)
		}
	case conductor.Started:
		p.session, p.dir = e.SessionID, e.Dir
		p.model = e.Model
		if m, err := provider.ParseModelID(e.Model); err == nil {
			p.model = m.Name
		}
		if stream {
			p.line(p.initMsg(e))
		}
	case conductor.TurnStarted:
		if parent == nil {
			p.stream = partial{}
		}
	case conductor.Delta:
		if stream && p.Partial && parent == nil {
			p.delta(e.Delta)
		}
	case conductor.AssistantMessage:
		for _, u := range e.Message.ToolUses() {
			p.uses[u.ID] = u
		}
		if stream {
			if p.Partial && parent == nil {
				p.model = e.Model
				p.finish(e)
			}
			p.line(assistantMsg{Type: "assistant", Message: apiResponse{Model: e.Model, ID: e.ID, Type: "message",
				Role: "assistant", Content: claudeBlocks(e.Message.Blocks), StopReason: e.Stop, Usage: e.Usage}, header: p.header(parent)})
		} else if p.verbose {
			for _, b := range e.Message.ToolUses() {
				fmt.Fprintf(p.stderr, "%s→ %s %s\n", who, b.Name, clip(string(b.Input), 200))
			}
		}
	case conductor.ToolResults:
		if stream {
			p.toolResults(e.Message, parent)
		} else if p.verbose {
			for _, b := range e.Message.Blocks {
				mark := "←"
				if b.IsError {
					mark = "← error:"
				}
				fmt.Fprintf(p.stderr, "%s%s %s\n", who, mark, clip(b.Text, 200))
			}
		}
		for _, b := range e.Message.Blocks {
			delete(p.uses, b.ToolUseID)
		}
	case conductor.Notice:
		if !stream || p.verbose {
			fmt.Fprintln(p.stderr, "indusr:", e.Text)
		}
	case conductor.Compacted:
		if stream {
			p.line(systemMsg{Type: "system", Subtype: "compact_boundary", UUID: newUUID(), SessionID: p.session})
		}
	}
}

func (p *Printer) initMsg(e conductor.Started) initMsg {
	// skills and slash_commands are the skills the user can run as /id;
	// there are no built-in commands in -p.
	skills := append([]string{}, e.Skills...)
	in := p.Init
	in.MCPServers, in.Agents, in.Plugins = slices.Clone(in.MCPServers), slices.Clone(in.Agents), slices.Clone(in.Plugins)
	for _, s := range e.Servers {
		in.MCPServers = append(in.MCPServers, MCPServer{Name: s.Name, Status: serverStatus(s.State)})
	}
	in.Agents = append(in.Agents, e.Agents...)
	for _, a := range e.Addons {
		in.Plugins = append(in.Plugins, Plugin{Name: a.ID, Path: a.Path})
	}
	return initMsg{Type: "system", Subtype: "init", Cwd: e.Dir, SessionID: e.SessionID, Tools: orEmpty(e.Tools),
		MCPServers: orEmpty(in.MCPServers), Model: e.Model, PermissionMode: string(e.Mode), SlashCommands: skills,
		APIKeySource: in.APIKeySource, OutputStyle: "default", Agents: orEmpty(in.Agents), Skills: skills,
		Plugins: orEmpty(in.Plugins), Capabilities: orEmpty(in.Capabilities), UUID: newUUID()}
}

// serverStatus is an MCP server's state in Claude Code's words.
func serverStatus(state string) string {
	switch state {
	case "ready":
		return "connected"
	case "connecting", "exited":
		return "pending" // connected by the next call
	case "detached":
		return "disabled"
	}
	return "failed"
}

// toolResults prints one user message per tool result, as Claude Code
// does; a refused call is announced first by a system/permission_denied.
func (p *Printer) toolResults(m provider.Message, parent *string) {
	for _, b := range m.Blocks {
		if b.Kind != provider.ToolResultBlock {
			continue
		}
		use := p.uses[b.ToolUseID]
		meta := resultMeta{ID: b.ToolUseID, PermissionDecision: decisionOfCall{Decision: "accept"}}
		if b.Failure == toolrun.Refused {
			meta.PermissionDecision.Decision = "reject"
			meta.NonExecutionKind = "permission-refused"
			p.line(systemMsg{Type: "system", Subtype: "permission_denied", ToolName: use.Name, ToolUseID: b.ToolUseID,
				Message: b.Text, UUID: newUUID(), SessionID: p.session})
		}
		u := userMsg{Type: "user", header: p.header(parent), ToolUseResult: toolUseResult(use, b, p.dir), ToolResultMeta: []resultMeta{meta}}
		u.Message.Role = "user"
		u.Message.Content = claudeBlocks([]provider.Block{b})
		p.line(u)
	}
}

// Result shows how the run ended.
func (p *Printer) Result(r *conductor.Result) {
	if p.format == "text" {
		switch {
		case r.Subtype == conductor.ErrorMaxTurns:
			// On standard output, as Claude Code prints it; the turn
			// refused is counted in Turns.
			fmt.Fprintf(p.w, "Error: Reached max turns (%d)\n", r.Turns-1)
		case r.IsError:
			fmt.Fprintln(p.stderr, "indusr:", r.Text)
		default:
			p.w.WriteString(strings.TrimRight(r.Text, "\n") + "\n")
		}
		return
	}
	sub, terminal := outcome(r.Subtype)
	m := resultMsg{Type: "result", Subtype: sub, IsError: r.IsError,
		DurationMS: r.Duration.Milliseconds(), DurationAPIMS: r.APIDuration.Milliseconds(), NumTurns: r.Turns,
		SessionID: p.session, TotalCostUSD: r.Cost, Usage: r.Usage, ModelUsage: map[string]modelUsage{},
		PermissionDenials: []denial{}, TerminalReason: terminal, UUID: newUUID(), ResultIndex: p.results,
		SubagentStats: subagentStats{Runs: r.Subagents.Runs, Failed: r.Subagents.Failed, NumTurns: r.Subagents.Turns,
			TotalCostUSD: r.Subagents.Cost, Usage: r.Subagents.Usage}}
	p.results++
	if r.IsError {
		m.Errors = []string{r.Text}
	} else {
		m.Result = &r.Text
	}
	if r.Stop != "" {
		s := string(r.Stop)
		m.StopReason = &s
	}
	for _, u := range r.Models {
		m.ModelUsage[u.Model] = modelUsage{InputTokens: u.Usage.InputTokens, OutputTokens: u.Usage.OutputTokens,
			CacheReadInputTokens: u.Usage.CacheReadTokens, CacheCreationInputTokens: u.Usage.CacheWriteTokens,
			CostUSD: u.Cost, ContextWindow: u.ContextWindow, MaxOutputTokens: u.MaxOutputTokens}
	}
	for _, d := range r.Denials {
		m.PermissionDenials = append(m.PermissionDenials, denial{ToolName: d.Tool, ToolUseID: d.ToolUseID, ToolInput: d.Input})
	}
	p.line(m)
}

// outcome is a run's end in Claude Code's words: the result's subtype
// and terminal_reason. Claude Code has no subtype of its own for a
// prompt a hook refused or a cancelled run; both are errors during
// execution, told apart by the terminal reason.
func outcome(s conductor.Subtype) (subtype, terminal string) {
	switch s {
	case conductor.Success:
		return string(s), "completed"
	case conductor.ErrorMaxTurns:
		return string(s), "max_turns"
	case conductor.Refused:
		return string(conductor.ErrorExecution), "hook_stopped"
	case conductor.Cancelled:
		return string(conductor.ErrorExecution), "aborted_streaming"
	case conductor.ErrorExecution:
		return string(s), "api_error"
	}
	return string(s), ""
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
		case provider.RedactedThinkingBlock:
			out = append(out, map[string]any{"type": "redacted_thinking", "data": b.Data})
		case provider.ToolUseBlock:
			out = append(out, map[string]any{"type": "tool_use", "id": b.ID, "name": b.Name, "input": b.Input})
		case provider.ToolResultBlock:
			out = append(out, map[string]any{"type": "tool_result", "tool_use_id": b.ToolUseID, "content": b.Text, "is_error": b.IsError})
		}
	}
	return out
}

func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func clip(s string, n int) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
