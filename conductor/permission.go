package conductor

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/indusagi/induscode/addons/hooks"
)

// PermissionMode decides which calls run without asking, as Claude Code's
// modes do.
type PermissionMode string

// The permission modes.
const (
	// Default runs read-only tools; any other call needs an allow rule,
	// since a run with no one to ask refuses it.
	Default PermissionMode = "default"
	// AcceptEdits also runs the file edits (write, edit).
	AcceptEdits PermissionMode = "acceptEdits"
	// Plan runs read-only tools only: the agent plans and presents the
	// plan; nothing changes.
	Plan PermissionMode = "plan"
	// BypassPermissions runs every call.
	BypassPermissions PermissionMode = "bypassPermissions"
)

// PermissionModes returns every mode; each call returns a new slice.
func PermissionModes() []PermissionMode {
	return []PermissionMode{Default, AcceptEdits, Plan, BypassPermissions}
}

// ParsePermissionMode checks a mode's name.
func ParsePermissionMode(s string) (PermissionMode, error) {
	for _, m := range PermissionModes() {
		if string(m) == s {
			return m, nil
		}
	}
	return "", fmt.Errorf("unknown permission mode %q; modes are default, acceptEdits, plan, bypassPermissions", s)
}

// freeTools change only the session's own bookkeeping, so no mode asks
// for them.
func isFreeTool(name string) bool {
	switch name {
	case "todo_read", "todo_set", "enter_plan_mode", "exit_plan_mode":
		return true
	}
	return false
}

// Rule is one --allowed-tools / --disallowed-tools entry in Claude Code's
// syntax: a tool ("Bash", "Edit", "mcp__server__tool", "mcp__server", or
// one of our names), optionally with a specifier in parentheses: a
// command ("Bash(npm test)") or command prefix ("Bash(git diff:*)"), a
// path glob for file tools ("Edit(src/**)"), "domain:host" for WebFetch.
type Rule struct {
	Tool, Spec string
	Prefix     bool // Spec ended in ":*"
	text       string
}

func (r Rule) String() string { return r.text }

// ParseRules parses rules; entries may also be separated by commas or
// spaces within one argument, as Claude Code accepts ("Read,Edit").
func ParseRules(args []string) ([]Rule, error) {
	var out []Rule
	for _, a := range args {
		for _, item := range splitRules(a) {
			r, err := parseRule(item)
			if err != nil {
				return nil, err
			}
			out = append(out, r)
		}
	}
	return out, nil
}

// splitRules splits on commas and spaces outside parentheses.
func splitRules(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, c := range s {
		switch c {
		case '(':
			depth++
		case ')':
			depth--
		case ',', ' ':
			if depth == 0 {
				if t := strings.TrimSpace(s[start:i]); t != "" {
					out = append(out, t)
				}
				start = i + 1
			}
		}
	}
	if t := strings.TrimSpace(s[start:]); t != "" {
		out = append(out, t)
	}
	return out
}

func parseRule(s string) (Rule, error) {
	r := Rule{text: s, Tool: s}
	if open := strings.IndexByte(s, '('); open >= 0 {
		if !strings.HasSuffix(s, ")") || open == 0 {
			return r, fmt.Errorf("rule %q: write Tool or Tool(specifier), such as Bash(git diff:*)", s)
		}
		r.Tool, r.Spec = s[:open], s[open+1:len(s)-1]
		if spec, ok := strings.CutSuffix(r.Spec, ":*"); ok {
			r.Spec, r.Prefix = spec, true
		}
		if r.Spec == "" {
			return r, fmt.Errorf("rule %q has an empty specifier", s)
		}
	}
	return r, nil
}

// matches reports whether r, as an allow rule, covers a call of our tool
// name with input in the workspace at root.
func (r Rule) matches(root, name string, input json.RawMessage) bool {
	return r.match(root, name, input, false)
}

// denies reports whether r, as a deny rule, covers the call: a command
// is denied when any command it runs matches, or one it cannot see
// through; a path when any way of reading it matches.
func (r Rule) denies(root, name string, input json.RawMessage) bool {
	return r.match(root, name, input, true)
}

// covers reports whether r names the tool: by its name or Claude Code's,
// or as a kind (Read, Edit, Bash) the tool belongs to.
func (r Rule) covers(name string) bool {
	claude := hooks.ClaudeToolName(name)
	switch {
	case r.Tool == name || r.Tool == claude:
	case r.Tool == "Edit" && isEditTool(name):
	case r.Tool == "Read" && readTools[name]:
	case r.Tool == "Bash" && isCommandTool(name):
	case strings.HasPrefix(r.Tool, "mcp__") && strings.HasPrefix(claude, r.Tool+"__"):
		// mcp__server covers every tool of the server.
	default:
		return false
	}
	return true
}

func (r Rule) match(root, name string, input json.RawMessage, deny bool) bool {
	if !r.covers(name) {
		return false
	}
	if r.Spec == "" {
		return true
	}
	var in map[string]any
	json.Unmarshal(input, &in)
	str := func(k string) string { s, _ := in[k].(string); return s }
	switch {
	case isCommandTool(name):
		cmd := str("command")
		if deny && str("action") == "input" {
			cmd = str("text") // typed into a running shell, it is a command too
		}
		if cmd == "" {
			return false
		}
		words := ruleWords(r.Spec)
		if deny {
			return scriptDenied(words, r.Prefix, cmd, 0)
		}
		return scriptAllowed(words, r.Prefix, cmd)
	case name == "webfetch":
		host, ok := strings.CutPrefix(r.Spec, "domain:")
		u, err := url.Parse(str("url"))
		return ok && err == nil && (u.Hostname() == host || strings.HasSuffix(u.Hostname(), "."+host))
	case readTools[name] || isEditTool(name):
		if deny {
			return pathDenied(root, r.Spec, name, input)
		}
		return pathAllowed(root, r.Spec, name, input)
	default:
		// Another tool's path, as written (a grafted tool's paths are its
		// own business).
		p := str("path")
		if p == "" {
			return false
		}
		ok, _ := doublestar.Match(strings.TrimPrefix(r.Spec, "./"), strings.TrimPrefix(p, "./"))
		return ok
	}
}

// permissions decides a call: the deny rules first, then plan mode, then
// the mode and the allow rules.
type permissions struct {
	mode            PermissionMode
	allow, disallow []Rule
	// root is the workspace the rules' relative paths are in.
	root string
}

// removes reports whether a deny rule without a specifier names the
// tool, which then is not offered to the model at all.
func (p *permissions) removes(name string) bool {
	for _, r := range p.disallow {
		if r.Spec == "" && r.denies(p.root, name, nil) {
			return true
		}
	}
	return false
}

// refusal is why a call may not run, or "": a deny rule or plan mode
// (refuse), or the permission the call needs and no one can give here
// (ask), which a PreToolUse hook's allow may still give.
func (p *permissions) refusal(name string, readOnly bool, input json.RawMessage, planning bool) (refuse, ask string) {
	for _, r := range p.disallow {
		if r.denies(p.root, name, input) {
			return fmt.Sprintf("The call of %s was refused by the rule %s of --disallowed-tools; do not retry it.", name, r), ""
		}
	}
	if isFreeTool(name) {
		return "", ""
	}
	if planning && !readOnly {
		return fmt.Sprintf("Plan mode: %s may change things, and only read-only tools run until the plan is approved. "+
			"Explore with read-only tools, then present the plan with exit_plan_mode.", name), ""
	}
	if readOnly || p.mode == BypassPermissions || (p.mode == AcceptEdits && isEditTool(name)) {
		return "", ""
	}
	for _, r := range p.allow {
		if r.matches(p.root, name, input) {
			return "", ""
		}
	}
	return "", fmt.Sprintf("The call of %s needs permission, and no one can be asked in this run (permission mode %s). "+
		"The user may allow it with --allowed-tools (for example %q), --permission-mode, or a PreToolUse hook that answers allow.",
		name, p.mode, example(name))
}

func example(name string) string {
	switch name {
	case "bash":
		return "Bash(npm test:*)"
	case "write", "edit":
		return "Edit"
	}
	return hooks.ClaudeToolName(name)
}
