package agent

import (
	"encoding/json"
	"time"

	"github.com/google/uuid"

	"github.com/indusagi/induscode/provider"
)

// The messages of json and stream-json, in Claude Code's shapes. They
// are structs, not maps, so that keys come out in Claude Code's order,
// type first: a script that reads the first key, or a reader that
// dispatches on a prefix of the line, sees what it sees from claude -p.
// Keys that describe something indusr has no notion of are left out
// rather than given an invented value (README lists them).

// header is what every message but the result carries after its body:
// the subagent's tool call it belongs to (null for the main agent), the
// session, the message's own id and, for conversation messages, when it
// was printed.
type header struct {
	Parent    *string `json:"parent_tool_use_id"`
	SessionID string  `json:"session_id"`
	UUID      string  `json:"uuid"`
	Timestamp string  `json:"timestamp,omitempty"`
}

// initMsg is system/init: the session as the run begins.
type initMsg struct {
	Type           string      `json:"type"`
	Subtype        string      `json:"subtype"`
	Cwd            string      `json:"cwd"`
	SessionID      string      `json:"session_id"`
	Tools          []string    `json:"tools"`
	MCPServers     []MCPServer `json:"mcp_servers"`
	Model          string      `json:"model"`
	PermissionMode string      `json:"permissionMode"`
	SlashCommands  []string    `json:"slash_commands"`
	APIKeySource   string      `json:"apiKeySource"`
	OutputStyle    string      `json:"output_style"`
	Agents         []string    `json:"agents"`
	Skills         []string    `json:"skills"`
	Plugins        []Plugin    `json:"plugins"`
	Capabilities   []string    `json:"capabilities"`
	UUID           string      `json:"uuid"`
}

// MCPServer is a server of system/init's mcp_servers.
type MCPServer struct {
	Name   string `json:"name"`
	Status string `json:"status"`
}

// Plugin is an entry of system/init's plugins: an addon, by its name and
// folder.
type Plugin struct {
	Name string `json:"name"`
	Path string `json:"path"`
}

// systemMsg is a system message of one subtype and no body beyond the
// fields its subtype adds (compact_boundary, permission_denied).
type systemMsg struct {
	Type      string `json:"type"`
	Subtype   string `json:"subtype"`
	ToolName  string `json:"tool_name,omitempty"`
	ToolUseID string `json:"tool_use_id,omitempty"`
	Message   string `json:"message,omitempty"`
	UUID      string `json:"uuid"`
	SessionID string `json:"session_id"`
}

// assistantMsg is the model's message, as the Messages API gives it.
type assistantMsg struct {
	Type    string      `json:"type"`
	Message apiResponse `json:"message"`
	header
}

type apiResponse struct {
	Model        string              `json:"model"`
	ID           string              `json:"id"`
	Type         string              `json:"type"`
	Role         string              `json:"role"`
	Content      []map[string]any    `json:"content"`
	StopReason   provider.StopReason `json:"stop_reason"`
	StopSequence *string             `json:"stop_sequence"`
	Usage        provider.Usage      `json:"usage"`
}

// userMsg is one tool result, as the user's message that answers the
// call, with the tool's own account of it (tool_use_result) and how its
// permission was decided (tool_result_meta).
type userMsg struct {
	Type    string `json:"type"`
	Message struct {
		Role    string           `json:"role"`
		Content []map[string]any `json:"content"`
	} `json:"message"`
	header
	ToolUseResult  any          `json:"tool_use_result"`
	ToolResultMeta []resultMeta `json:"tool_result_meta"`
}

type resultMeta struct {
	ID                 string         `json:"id"`
	NonExecutionKind   string         `json:"non_execution_kind,omitempty"`
	PermissionDecision decisionOfCall `json:"permission_decision"`
}

type decisionOfCall struct {
	Decision string `json:"decision"` // "accept" or "reject"
}

// resultMsg is the end of the run. An error result carries errors in
// place of result, as Claude Code's do (the Agent SDK reads errors).
type resultMsg struct {
	Type              string                `json:"type"`
	Subtype           string                `json:"subtype"`
	IsError           bool                  `json:"is_error"`
	DurationMS        int64                 `json:"duration_ms"`
	DurationAPIMS     int64                 `json:"duration_api_ms"`
	NumTurns          int                   `json:"num_turns"`
	Result            *string               `json:"result,omitempty"`
	StopReason        *string               `json:"stop_reason"`
	SessionID         string                `json:"session_id"`
	TotalCostUSD      float64               `json:"total_cost_usd"`
	Usage             provider.Usage        `json:"usage"`
	ModelUsage        map[string]modelUsage `json:"modelUsage"`
	PermissionDenials []denial              `json:"permission_denials"`
	TerminalReason    string                `json:"terminal_reason,omitempty"`
	SubagentStats     subagentStats         `json:"subagent_stats"`
	Errors            []string              `json:"errors,omitempty"`
	UUID              string                `json:"uuid"`
	ResultIndex       int                   `json:"result_index"`
}

// subagentStats is what the run's subagents did: how many ran, failed,
// and their turns, cost and usage, which the run's own figures leave out.
type subagentStats struct {
	Runs         int            `json:"runs"`
	Failed       int            `json:"failed"`
	NumTurns     int            `json:"num_turns"`
	TotalCostUSD float64        `json:"total_cost_usd"`
	Usage        provider.Usage `json:"usage"`
}

type modelUsage struct {
	InputTokens              int64   `json:"inputTokens"`
	OutputTokens             int64   `json:"outputTokens"`
	CacheReadInputTokens     int64   `json:"cacheReadInputTokens"`
	CacheCreationInputTokens int64   `json:"cacheCreationInputTokens"`
	WebSearchRequests        int     `json:"webSearchRequests"`
	CostUSD                  float64 `json:"costUSD"`
	ContextWindow            int64   `json:"contextWindow"`
	MaxOutputTokens          int64   `json:"maxOutputTokens"`
}

type denial struct {
	ToolName  string          `json:"tool_name"`
	ToolUseID string          `json:"tool_use_id"`
	ToolInput json.RawMessage `json:"tool_input"`
}

// streamEvent is one event of the model's answer as it streams
// (--include-partial-messages), in the Messages API's shape.
type streamEvent struct {
	Type      string  `json:"type"`
	Event     any     `json:"event"`
	SessionID string  `json:"session_id"`
	Parent    *string `json:"parent_tool_use_id"`
	UUID      string  `json:"uuid"`
}

// newUUID is a message's id: random, as Claude Code's are.
func newUUID() string { return uuid.NewString() }

// stamp is a message's timestamp: UTC to the millisecond, as Claude
// Code writes it.
func stamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }
