package streamhost

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/indusagi/induscode/agents"
	"github.com/indusagi/induscode/conductor"
)

// initRequest is the app's initialize control request: what it asks the
// session to be. Fields indusr has no notion of are not decoded.
type initRequest struct {
	Hooks                 map[string][]hookMatcher  `json:"hooks"`
	SDKMcpServers         []string                  `json:"sdkMcpServers"`
	SDKMcpServerManifests map[string]serverManifest `json:"sdkMcpServerManifests"`
	JSONSchema            json.RawMessage           `json:"jsonSchema"`
	// SystemPrompt is a string list in TypeScript ([""] when the app gave
	// none) and may be a plain string.
	SystemPrompt       json.RawMessage     `json:"systemPrompt"`
	AppendSystemPrompt string              `json:"appendSystemPrompt"`
	Agents             map[string]agentDef `json:"agents"`
	Skills             []string            `json:"skills"`
}

// agentDef is one of the app's agents (the SDK's AgentDefinition): a
// subagent profile the task card may delegate to. Tools may be Claude
// Code's names; Model an alias (sonnet, opus, haiku) or inherit.
type agentDef struct {
	Description    string   `json:"description"`
	Prompt         string   `json:"prompt"`
	Tools          []string `json:"tools"`
	Model          string   `json:"model"`
	MaxTurns       int      `json:"maxTurns"`
	PermissionMode string   `json:"permissionMode"`
}

// systemText returns the system prompt the app gave, "" for none: an
// empty prompt (the TypeScript SDK's default) keeps indusr's briefing,
// which tells the model about its tools and the workspace.
func (r *initRequest) systemText() string {
	var list []string
	if json.Unmarshal(r.SystemPrompt, &list) != nil {
		var s string
		json.Unmarshal(r.SystemPrompt, &s)
		list = []string{s}
	}
	return strings.TrimSpace(strings.Join(list, "\n\n"))
}

// applyInit adds what the app's initialize asks for to o.
func (h *host) applyInit(ctx context.Context, r *initRequest, o *conductor.Options) error {
	if s := r.systemText(); s != "" {
		o.System = s
	}
	if a := strings.TrimSpace(r.AppendSystemPrompt); a != "" {
		o.AppendSystem = strings.TrimSpace(o.AppendSystem + "\n\n" + a)
	}
	if r.Skills != nil {
		o.SkillFilter = r.Skills
	}
	if len(r.JSONSchema) > 0 && string(r.JSONSchema) != "null" && h.schema == "" {
		h.schema = string(r.JSONSchema)
	}
	for _, name := range sortedKeys(r.Agents) {
		a := r.Agents[name]
		p := agents.Profile{Name: name, Description: a.Description, Prompt: a.Prompt, Tools: a.Tools,
			Model: agents.ClaudeModel(a.Model), MaxTurns: a.MaxTurns, PermissionMode: a.PermissionMode}
		if err := p.Check(); err != nil {
			return fmt.Errorf("the app's agent %q: %w", name, err)
		}
		o.Agents = append(o.Agents, p)
	}
	return h.applyHooks(r.Hooks, o)
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// initAnswer is the answer to initialize: the commands (the skills the
// user can run as /id), agents, the one output style, the model and the
// permission mode.
func (h *host) initAnswer(r *initRequest) map[string]any {
	commands := []map[string]any{}
	if set := h.c.Skills(); set != nil {
		for _, id := range set.UserInvocable() {
			commands = append(commands, map[string]any{"name": id, "description": "", "argumentHint": ""})
		}
	}
	agents := []map[string]any{}
	for _, name := range sortedKeys(r.Agents) {
		a := map[string]any{"name": name, "description": r.Agents[name].Description}
		if r.Agents[name].Model != "" {
			a["model"] = r.Agents[name].Model
		}
		agents = append(agents, a)
	}
	model := h.c.Model().String()
	return map[string]any{
		"commands":                commands,
		"agents":                  agents,
		"output_style":            "default",
		"available_output_styles": []string{"default"},
		"models":                  []map[string]any{{"value": model, "displayName": model, "description": "the session's model"}},
		"account":                 map[string]any{},
		"pid":                     pid(),
		"current_permission_mode": string(h.c.Mode()),
		"hooks_applied":           true,
	}
}

// control answers one control request of the app.
func (h *host) control(ctx context.Context, m inbound) {
	var req struct {
		Subtype     string          `json:"subtype"`
		CancelQueue bool            `json:"cancel_queued"`
		Mode        string          `json:"mode"`
		Model       *string         `json:"model"`
		MaxThinking *int            `json:"max_thinking_tokens"`
		ServerName  string          `json:"server_name"`
		Message     json.RawMessage `json:"message"`
		// rewind_files
		UserMessageID string `json:"user_message_id"`
		DryRun        bool   `json:"dry_run"`
	}
	if err := json.Unmarshal(m.Request, &req); err != nil {
		h.wire.answer(m.RequestID, nil, fmt.Errorf("the control request does not decode: %v", err))
		return
	}
	switch req.Subtype {
	case "initialize":
		// The session is open: a second initialize (reinitialize) gets
		// the same answer and changes nothing.
		h.wire.answer(m.RequestID, h.initAnswer(&initRequest{}), nil)
	case "interrupt":
		h.wire.answer(m.RequestID, h.interrupt(req.CancelQueue), nil)
	case "set_permission_mode":
		h.wire.answer(m.RequestID, nil, h.setMode(req.Mode))
	case "set_model":
		model := h.initialModel
		if req.Model != nil && *req.Model != "" && *req.Model != "default" {
			model = *req.Model
		}
		h.wire.answer(m.RequestID, nil, h.c.SetModel(ctx, model))
	case "set_max_thinking_tokens":
		level := "off"
		if req.MaxThinking != nil {
			level = ThinkingLevel(*req.MaxThinking)
		}
		h.wire.answer(m.RequestID, nil, h.c.SetThinking(ctx, level))
	case "mcp_message":
		// An app's server speaks first only with notifications (its tool
		// list changed); indusr took the tools at the start.
		h.wire.answer(m.RequestID, map[string]any{"mcp_response": map[string]any{"jsonrpc": "2.0", "result": map[string]any{}, "id": 0}}, nil)
	case "rewind_files":
		h.wire.answer(m.RequestID, h.rewindFiles(req.UserMessageID, req.DryRun), nil)
	case "mcp_status":
		h.wire.answer(m.RequestID, map[string]any{"mcpServers": h.serverStatus()}, nil)
	default:
		h.wire.answer(m.RequestID, nil, fmt.Errorf("Unsupported control request subtype: %s", req.Subtype))
	}
}

// interrupt stops the running turn (its result follows) and, when asked,
// drops the messages not yet run; it returns the answer: the ids of the
// messages still queued, and of those dropped.
func (h *host) interrupt(cancelQueued bool) map[string]any {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.cancel != nil {
		h.cancel()
	}
	ids := func(us []userMessage) []string {
		out := []string{}
		for _, u := range us {
			out = append(out, u.uuid)
		}
		return out
	}
	if cancelQueued {
		dropped := ids(h.queue)
		h.queue = nil
		return map[string]any{"still_queued": []string{}, "cancelled": dropped}
	}
	return map[string]any{"still_queued": ids(h.queue)}
}

// setMode changes the permission mode; the running turn's later calls
// are decided by it too, as in Claude Code.
func (h *host) setMode(mode string) error {
	m, err := conductor.ParsePermissionMode(mode)
	if err != nil {
		return err
	}
	return h.c.SetMode(m)
}

// ThinkingLevel is the thinking level of a budget in tokens, as the
// SDK's maxThinkingTokens gives it: 0 is off, then the nearest level
// whose budget covers it.
func ThinkingLevel(tokens int) string {
	switch {
	case tokens <= 0:
		return "off"
	case tokens <= 1024:
		return "low"
	case tokens <= 4096:
		return "medium"
	}
	return "high"
}
