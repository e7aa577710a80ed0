package hooks

import (
	"encoding/json"
	"strings"

	"github.com/indusagi/induscode/tool"
)

// claudeNames are Claude Code's names of the built-in tools that have a
// counterpart here.
var claudeNames = map[string]string{
	"bash":      "Bash",
	"read":      "Read",
	"write":     "Write",
	"edit":      "Edit",
	"grep":      "Grep",
	"find":      "Glob",
	"ls":        "LS",
	"webfetch":  "WebFetch",
	"websearch": "WebSearch",
	"todo_set":  "TodoWrite",
	"task":      "Task",
}

// claudeFields are the arguments that Claude Code's tools name apart from
// ours, by our tool name (ours: theirs). The others already share Claude
// Code's names: Bash's command, description and run_in_background; Grep's
// pattern, path, glob, type, output_mode, multiline and head_limit; Read's
// offset and limit; Write's content; Edit's old_string, new_string and
// replace_all; Glob's pattern and path; LS's path and ignore; WebSearch's
// query and domain lists; TodoWrite's todos.
var claudeFields = map[string]map[string]string{
	"bash":  {"timeout_ms": "timeout"}, // milliseconds on both sides
	"read":  {"path": "file_path"},
	"write": {"path": "file_path"},
	"edit":  {"path": "file_path"},
	"grep": {"case_insensitive": "-i", "line_numbers": "-n",
		"before": "-B", "after": "-A", "context": "-C"},
}

// pathFields are the arguments (by our names) that hold a path, which
// Claude Code's tools always send absolute; hook scripts compare them with
// $CLAUDE_PROJECT_DIR.
var pathFields = map[string]string{
	"read": "path", "write": "path", "edit": "path",
	"grep": "path", "find": "path", "ls": "path",
}

// ClaudeInput is the arguments of a call of tool name as Claude Code's
// tool of that name takes them, so that a hook written for Claude Code finds them
// where it looks: its names, and the path made absolute (and clean) as the
// tool will resolve it in dir, the session's directory. Input that is not a
// JSON object is returned as is.
func ClaudeInput(name string, args json.RawMessage, dir string) json.RawMessage {
	m, ok := object(args)
	if !ok {
		return args
	}
	changed := false
	if f, ok := pathFields[name]; ok && dir != "" {
		var p string
		if json.Unmarshal(m[f], &p) == nil && p != "" {
			if abs, err := tool.ResolveIn(dir, p); err == nil && abs != p {
				m[f], _ = json.Marshal(abs)
				changed = true
			}
		}
	}
	if rename(m, claudeFields[name], false) {
		changed = true
	}
	if !changed {
		return args
	}
	return encode(m, args)
}

// OurInput undoes ClaudeInput's names, for the updatedInput of a Claude
// Code hook; an absolute path stays absolute, which every tool takes.
func OurInput(name string, args json.RawMessage) json.RawMessage {
	m, ok := object(args)
	if !ok || !rename(m, claudeFields[name], true) {
		return args
	}
	return encode(m, args)
}

func object(args json.RawMessage) (map[string]json.RawMessage, bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(args, &m) != nil || m == nil {
		return nil, false
	}
	return m, true
}

func encode(m map[string]json.RawMessage, orig json.RawMessage) json.RawMessage {
	out, err := json.Marshal(m)
	if err != nil {
		return orig
	}
	return out
}

// rename renames the keys of m by names (ours to theirs, or back), unless
// the new name is taken; it reports whether it renamed any.
func rename(m map[string]json.RawMessage, names map[string]string, back bool) bool {
	changed := false
	for ours, theirs := range names {
		from, to := ours, theirs
		if back {
			from, to = theirs, ours
		}
		if v, ok := m[from]; ok {
			if _, taken := m[to]; !taken {
				m[to] = v
				delete(m, from)
				changed = true
			}
		}
	}
	return changed
}

// ClaudeToolName is Claude Code's name for the tool named name: Bash for
// bash, mcp__fs__read for the grafted fs__read, else name itself.
func ClaudeToolName(name string) string {
	if c, ok := claudeNames[name]; ok {
		return c
	}
	if strings.Contains(name, "__") {
		return "mcp__" + name
	}
	return name
}
