package streamhost

import (
	"context"
	"encoding/json"

	"github.com/indusagi/induscode/addons/hooks"
	"github.com/indusagi/induscode/conductor"
)

// permissionUpdate is one of the changes an app's answer may make to the
// permissions (the SDK's PermissionUpdate).
type permissionUpdate struct {
	Type     string `json:"type"`
	Behavior string `json:"behavior"`
	Mode     string `json:"mode"`
	Rules    []struct {
		ToolName    string `json:"toolName"`
		RuleContent string `json:"ruleContent"`
	} `json:"rules"`
}

// askApp puts a call that needs permission to the app (can_use_tool) in
// Claude Code's words: its tool names and argument names. The app's
// answer may edit the call (updatedInput) and change the permissions for
// the rest of the session (updatedPermissions, see applyUpdates). A
// denial's message is what the model reads; its interrupt flag also ends the
// turn.
func (h *host) askApp(ctx context.Context, q conductor.Question) conductor.Answer {
	name := hooks.ClaudeToolName(q.Tool)
	req := map[string]any{
		"subtype":   "can_use_tool",
		"tool_name": name,
		"input":     hooks.ClaudeInput(q.Tool, q.Input, h.cfg.Options.Session.Dir),
		"permission_suggestions": []any{map[string]any{"type": "addRules", "behavior": "allow", "destination": "session",
			"rules": []any{map[string]any{"toolName": name}}}},
		"decision_reason": q.Why,
	}
	if q.ToolUseID != "" {
		req["tool_use_id"] = q.ToolUseID
	}
	resp, err := h.wire.request(ctx, req)
	if err != nil {
		return conductor.Answer{Reason: err.Error()}
	}
	var a struct {
		Behavior           string             `json:"behavior"`
		Message            string             `json:"message"`
		Interrupt          bool               `json:"interrupt"`
		UpdatedInput       json.RawMessage    `json:"updatedInput"`
		UpdatedPermissions []permissionUpdate `json:"updatedPermissions"`
	}
	if err := json.Unmarshal(resp, &a); err != nil {
		return conductor.Answer{Reason: "the app's answer does not decode: " + err.Error()}
	}
	switch a.Behavior {
	case "allow":
		h.applyUpdates(a.UpdatedPermissions)
		ans := conductor.Answer{Allow: true}
		if len(a.UpdatedInput) > 0 && string(a.UpdatedInput) != "null" {
			ans.Input = hooks.OurInput(q.Tool, a.UpdatedInput)
		}
		return ans
	case "deny":
		if a.Interrupt {
			h.mu.Lock()
			if h.cancel != nil {
				h.cancel()
			}
			h.mu.Unlock()
		}
		if a.Message == "" {
			a.Message = "the app refused the call"
		}
		return conductor.Answer{Reason: a.Message}
	}
	return conductor.Answer{Reason: "the app answered with behavior " + a.Behavior + ", neither allow nor deny"}
}

// applyUpdates makes the permission changes of an answer for the rest
// of the session: allow rules (in Claude Code's rule syntax, which the
// conductor's rules share) and a permission mode. Deny and ask rules,
// directories and the destination (which settings file Claude Code would
// write) are not kept: indusr writes no settings for the app.
func (h *host) applyUpdates(ups []permissionUpdate) {
	for _, u := range ups {
		switch u.Type {
		case "addRules", "replaceRules":
			if u.Behavior != "allow" {
				continue
			}
			for _, r := range u.Rules {
				rule := r.ToolName
				if r.RuleContent != "" {
					rule += "(" + r.RuleContent + ")"
				}
				if err := h.c.AllowRule(rule); err != nil {
					h.warn("the app's rule %s is not used: %v", rule, err)
				}
			}
		case "setMode":
			if err := h.setMode(u.Mode); err != nil {
				h.warn("the app's permission mode %q is not used: %v", u.Mode, err)
			}
		}
	}
}
