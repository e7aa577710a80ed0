package hooks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Input is the JSON request a hook reads on stdin. The field names are
// Claude Code's; fields an event does not have are left out.
type Input struct {
	SessionID string `json:"session_id"`
	// TranscriptPath is always empty: a tool layer keeps no transcript.
	TranscriptPath string `json:"transcript_path"`
	Cwd            string `json:"cwd"`
	HookEventName  string `json:"hook_event_name"`
	ToolName       string `json:"tool_name,omitempty"`
	// ToolInput is the call's arguments as the tool takes them.
	ToolInput json.RawMessage `json:"tool_input,omitempty"`
	// ToolResponse (PostToolUse) is the tool's result in MCP's shape:
	// {"content": [{"type": "text", "text": …}, …], "isError": true}.
	ToolResponse json.RawMessage `json:"tool_response,omitempty"`
	// Prompt is the user's input (UserPromptSubmit).
	Prompt string `json:"prompt,omitempty"`
	// Source is how the session began (SessionStart): always "startup".
	Source string `json:"source,omitempty"`
	// Reason is why the session ended (SessionEnd): always "other".
	Reason string `json:"reason,omitempty"`
	// Trigger is what started a compaction (PreCompact): "auto" near the
	// context window, "manual" when asked for.
	Trigger string `json:"trigger,omitempty"`
	// StopHookActive (Stop) is true when the agent is already going on
	// because a Stop hook asked it to, so a hook can avoid a loop.
	StopHookActive *bool `json:"stop_hook_active,omitempty"`
	// AgentID and AgentType (SubagentStart, SubagentStop) are the
	// subagent's transcript id and its profile's name;
	// AgentTranscriptPath (SubagentStop) is its transcript's file.
	AgentID             string `json:"agent_id,omitempty"`
	AgentType           string `json:"agent_type,omitempty"`
	AgentTranscriptPath string `json:"agent_transcript_path,omitempty"`
}

// Output is the JSON reply a hook may print on stdout when it exits 0.
// Fields it does not know are ignored, as Claude Code does.
type Output struct {
	// Continue false stops what the event announces (the call, the
	// prompt), whatever the other fields say; StopReason says why.
	Continue   *bool  `json:"continue,omitempty"`
	StopReason string `json:"stopReason,omitempty"`
	// SuppressOutput is accepted and has no effect: there is no
	// transcript to hide the output from.
	SuppressOutput bool `json:"suppressOutput,omitempty"`
	// SystemMessage is shown to the user.
	SystemMessage string `json:"systemMessage,omitempty"`
	// Decision is the older form: "approve" or "block" (PreToolUse),
	// "block" (PostToolUse, UserPromptSubmit, and Stop, where it keeps
	// the agent going with Reason as its next input), with Reason.
	Decision string `json:"decision,omitempty"`
	Reason   string `json:"reason,omitempty"`

	HookSpecificOutput *SpecificOutput `json:"hookSpecificOutput,omitempty"`
}

// SpecificOutput is the event-specific part of a reply.
type SpecificOutput struct {
	HookEventName string `json:"hookEventName,omitempty"`
	// PermissionDecision (PreToolUse): allow, deny, ask or defer.
	PermissionDecision       string `json:"permissionDecision,omitempty"`
	PermissionDecisionReason string `json:"permissionDecisionReason,omitempty"`
	// UpdatedInput (PreToolUse) replaces the call's arguments.
	UpdatedInput json.RawMessage `json:"updatedInput,omitempty"`
	// AdditionalContext (PostToolUse, UserPromptSubmit, SessionStart) is
	// added to the result, the prompt, or the session's first prompt the
	// model sees.
	AdditionalContext string `json:"additionalContext,omitempty"`
}

// The permission decisions of a PreToolUse reply.
const (
	Allow = "allow"
	Deny  = "deny"
	Ask   = "ask"
	Defer = "defer"
)

// specific returns the event-specific part of a reply, nil when none.
func (o *Output) specific() *SpecificOutput {
	if o == nil {
		return nil
	}
	return o.HookSpecificOutput
}

// stopped reports whether the reply asks to stop, with its reason.
func (o *Output) stopped() (bool, string) {
	if o != nil && o.Continue != nil && !*o.Continue {
		return true, o.StopReason
	}
	return false, ""
}

// ParseOutput reads what a hook printed on stdout after exiting 0.
// Nothing (or only white space) is no reply. A JSON object is a reply;
// the fields are checked for values Claude Code would not accept.
// Anything else is an error that says what the hook printed: plain text is
// not a reply, and a reply that does not parse decides nothing.
func ParseOutput(stdout []byte) (*Output, error) {
	text := bytes.TrimSpace(stdout)
	if len(text) == 0 {
		return nil, nil
	}
	if text[0] != '{' {
		return nil, fmt.Errorf("it printed text that is not a JSON reply, which decides nothing: %s", excerpt(text))
	}
	var o Output
	if err := json.Unmarshal(text, &o); err != nil {
		return nil, fmt.Errorf("its JSON reply does not parse (%v), so it decides nothing: %s", err, excerpt(text))
	}
	switch o.Decision {
	case "", "approve", "block":
	default:
		return nil, fmt.Errorf(`its reply has decision %q; write "approve" or "block", or use hookSpecificOutput.permissionDecision`, o.Decision)
	}
	if s := o.HookSpecificOutput; s != nil {
		switch s.PermissionDecision {
		case "", Allow, Deny, Ask, Defer:
		default:
			return nil, fmt.Errorf("its reply has permissionDecision %q; write allow, deny, ask or defer", s.PermissionDecision)
		}
		if len(s.UpdatedInput) > 0 && !isObject(s.UpdatedInput) {
			return nil, fmt.Errorf("its updatedInput is %s, not a JSON object of the tool's arguments", excerpt(s.UpdatedInput))
		}
	}
	return &o, nil
}

func isObject(b json.RawMessage) bool {
	b = bytes.TrimSpace(b)
	return len(b) > 0 && b[0] == '{'
}

// excerpt is the start of a hook's output for a message: one line, at
// most 200 bytes.
func excerpt(b []byte) string {
	s := strings.TrimSpace(string(b))
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " …"
	}
	if len(s) > 200 {
		s = strings.ToValidUTF8(s[:200], "") + " …"
	}
	return fmt.Sprintf("%q", s)
}
