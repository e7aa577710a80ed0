package agents

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/indusagi/induscode/addons"
)

// ParseMarkdown parses a subagent file written for Claude Code
// (.claude/agents/NAME.md): YAML front matter between lines of ---, with
// name, description, tools (a comma-separated string or a list, in
// Claude Code's tool names or ours), model (an alias such as sonnet, a
// full id, or inherit) and permissionMode; the body is the system prompt.
// Fields Claude Code has and we do not use (color, skills, ...) are
// ignored, so a file written for it loads unchanged. stem is the default
// name; a problem is a load fault naming the file and, where it can, the
// line.
func ParseMarkdown(file, stem string, data []byte) (Profile, error) {
	fault := func(line int, format string, args ...any) (Profile, error) {
		return Profile{}, &addons.Fault{Kind: addons.LoadFault, File: file, Line: line, Msg: fmt.Sprintf(format, args...)}
	}
	text := strings.ReplaceAll(strings.TrimPrefix(string(data), "\ufeff"), "\r\n", "\n")
	lines := strings.Split(text, "\n")
	if strings.TrimRight(lines[0], " \t") != "---" {
		return fault(1, "no front matter: a subagent file begins with a line of ---, the fields name and description, and a closing ---")
	}
	end := 0
	for i := 1; i < len(lines); i++ {
		if strings.TrimRight(lines[i], " \t") == "---" {
			end = i
			break
		}
	}
	if end == 0 {
		return fault(1, "the front matter opened on line 1 is never closed: end the fields with a line holding only ---")
	}
	var root yaml.Node
	if err := yaml.Unmarshal([]byte(strings.Join(lines[1:end], "\n")), &root); err != nil {
		return fault(1, "the front matter is not valid YAML: %v", err)
	}
	p := Profile{Prompt: strings.TrimSpace(strings.Join(lines[end+1:], "\n"))}
	if len(root.Content) == 1 && root.Content[0].Kind == yaml.MappingNode {
		m := root.Content[0]
		for i := 0; i+1 < len(m.Content); i += 2 {
			key, v := m.Content[i].Value, m.Content[i+1]
			line := v.Line + 1 // the node's line within the front matter, after the opening ---
			scalar := func() (string, bool) { return v.Value, v.Kind == yaml.ScalarNode }
			var ok = true
			switch key {
			case "name":
				p.Name, ok = scalar()
			case "description":
				p.Description, ok = scalar()
			case "model":
				p.Model, ok = scalar()
			case "permissionMode":
				p.PermissionMode, ok = scalar()
			case "tools":
				switch v.Kind {
				case yaml.ScalarNode:
					p.ToolCollection = v.Value
				case yaml.SequenceNode:
					for _, e := range v.Content {
						p.Tools = append(p.Tools, e.Value)
					}
				default:
					ok = false
				}
			}
			if !ok {
				return fault(line, "field %s: want a single value", key)
			}
		}
	} else if len(root.Content) > 0 {
		return fault(2, "the front matter is not a set of fields (name: ..., description: ...)")
	}
	if strings.TrimSpace(p.Name) == "" {
		p.Name = stem
	}
	if !ValidName(p.Name) {
		return fault(0, "field name: %q is not kebab-case (such as code-reviewer)", p.Name)
	}
	if p.Model == "inherit" {
		p.Model = ""
	}
	if msg := p.check(); msg != "" {
		return fault(0, "%s", msg)
	}
	p.File = file
	return p, nil
}

// ClaudeModel is the model a Claude Code alias names (sonnet, opus,
// haiku), as a provider/model id; other values are returned as given.
func ClaudeModel(alias string) string {
	switch alias {
	case "sonnet":
		return "anthropic/claude-sonnet-4-5"
	case "opus":
		return "anthropic/claude-opus-4-5"
	case "haiku":
		return "anthropic/claude-haiku-4-5"
	}
	return alias
}
