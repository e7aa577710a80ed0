package skills

import (
	"fmt"
	"strings"
	"unicode"

	"go.yaml.in/yaml/v3"
)

// Limits of the format, from the Agent Skills specification and its
// reference validator, and the cut Claude Code applies to a description
// in the model's listing.
const (
	MaxName          = 64
	MaxSpecDesc      = 1024 // the format's limit on description
	MaxCompatibility = 500
	// MaxDescription is where a longer description is cut (Claude Code
	// lists at most 1,536 characters of one).
	MaxDescription = 1536
)

// specFields are the fields the format defines; anything else is refused
// by the reference validator.
var specFields = []string{"name", "description", "license", "compatibility", "metadata", "allowed-tools"}

// claudeFields are Claude Code's own fields. The two it acts on are read
// here; the others are accepted without effect.
var claudeFields = []string{"disable-model-invocation", "user-invocable", "when_to_use", "argument-hint",
	"arguments", "model", "effort", "context", "agent", "hooks", "paths", "shell"}

// claudeRead are the Claude Code fields that change what indusr does.
var claudeRead = []string{"disable-model-invocation", "user-invocable", "when_to_use"}

// fields reads the front matter's fields into sk, reporting every rule a
// field breaks at its line.
func (p *parser) fields(sk *Skill, m *yaml.Node) {
	var whenToUse string
	seen := map[string]int{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		line := k.Line + p.offset
		if first, dup := seen[k.Value]; dup {
			p.add(line, Warning, fmt.Sprintf("field %q is given twice (also on line %d); the last is used", k.Value, first))
		}
		seen[k.Value] = line
		switch k.Value {
		case "name":
			if s, ok := p.text(k.Value, v, line); ok {
				sk.Name = strings.TrimSpace(s)
				p.checkName(sk.Name, sk.ID, line)
			}
		case "description":
			if s, ok := p.text(k.Value, v, line); ok {
				sk.Description = strings.TrimSpace(s)
				p.checkDescription(sk.Description, line)
			}
		case "license":
			sk.License, _ = p.text(k.Value, v, line)
		case "compatibility":
			if s, ok := p.text(k.Value, v, line); ok {
				sk.Compatibility = s
				if n := len([]rune(s)); n > MaxCompatibility {
					p.add(line, Warning, fmt.Sprintf("compatibility has %d characters; the format allows %d", n, MaxCompatibility))
				}
			}
		case "metadata":
			sk.Metadata = p.metadata(v, line)
		case "allowed-tools":
			sk.AllowedTools = p.allowedTools(v, line)
		case "disable-model-invocation":
			sk.DisableModelInvocation = p.flag(k.Value, v, line, false)
		case "user-invocable":
			sk.UserInvocable = p.flag(k.Value, v, line, true)
		case "when_to_use":
			whenToUse, _ = p.text(k.Value, v, line)
		default:
			if !contains(claudeFields, k.Value) {
				p.add(line, Warning, fmt.Sprintf("unknown field %q is ignored (the format's fields are %s)", k.Value, strings.Join(specFields, ", ")))
				continue
			}
		}
		if contains(claudeFields, k.Value) {
			effect := "honoured here"
			if !contains(claudeRead, k.Value) {
				effect = "it has no effect here"
			}
			p.add(line, Warning, fmt.Sprintf("%s is Claude Code's own field (%s); validators of the format refuse it", k.Value, effect))
		}
	}
	if sk.Name == "" && p.line(m, "name", 0) == 0 {
		p.add(1, Warning, fmt.Sprintf("no name field; the folder's name %q is used", sk.ID))
	}
	if w := strings.TrimSpace(whenToUse); w != "" {
		sk.Description = strings.TrimSpace(sk.Description + " " + w)
	}
}

// text is v as a string, or a problem when it is not one.
func (p *parser) text(key string, v *yaml.Node, line int) (string, bool) {
	if v.Kind != yaml.ScalarNode || v.Tag == "!!null" {
		p.add(line, Warning, key+" must be text; it is ignored")
		return "", false
	}
	return v.Value, true
}

func (p *parser) flag(key string, v *yaml.Node, line int, def bool) bool {
	if v.Kind == yaml.ScalarNode {
		switch strings.ToLower(v.Value) {
		case "true":
			return true
		case "false":
			return false
		}
	}
	p.add(line, Warning, fmt.Sprintf("%s must be true or false; %v is assumed", key, def))
	return def
}

func (p *parser) metadata(v *yaml.Node, line int) map[string]string {
	if v.Kind != yaml.MappingNode {
		p.add(line, Warning, "metadata must be a map of keys to text; it is ignored")
		return nil
	}
	out := make(map[string]string, len(v.Content)/2)
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, val := v.Content[i], v.Content[i+1]
		if val.Kind != yaml.ScalarNode {
			p.add(val.Line+p.offset, Warning, fmt.Sprintf("metadata %q must be text; it is ignored", k.Value))
			continue
		}
		out[k.Value] = val.Value
	}
	return out
}

// allowedTools splits the space-separated list; a YAML list, which
// Claude Code also reads, is taken with a warning.
func (p *parser) allowedTools(v *yaml.Node, line int) []string {
	switch v.Kind {
	case yaml.ScalarNode:
		return strings.Fields(v.Value)
	case yaml.SequenceNode:
		p.add(line, Warning, "allowed-tools is a list; the format has a space-separated string (allowed-tools: Read Bash(git:*))")
		var out []string
		for _, e := range v.Content {
			if e.Kind == yaml.ScalarNode {
				out = append(out, e.Value)
			}
		}
		return out
	}
	p.add(line, Warning, "allowed-tools must be a space-separated string; it is ignored")
	return nil
}

// checkName applies the reference validator's rules on name. Breaking
// them is a warning: Claude Code loads such a skill under its folder's
// name all the same.
func (p *parser) checkName(name, dir string, line int) {
	bad := func(why string) { p.add(line, Warning, fmt.Sprintf("name %q %s", name, why)) }
	switch {
	case name == "":
		bad("is empty; the folder's name is used")
		return
	case len([]rune(name)) > MaxName:
		bad(fmt.Sprintf("has %d characters; the format allows %d", len([]rune(name)), MaxName))
	}
	if strings.ToLower(name) != name {
		bad("has capital letters; names are lowercase")
	}
	if strings.HasPrefix(name, "-") || strings.HasSuffix(name, "-") {
		bad("starts or ends with a hyphen")
	}
	if strings.Contains(name, "--") {
		bad("holds two hyphens in a row")
	}
	for _, r := range name {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' {
			bad(fmt.Sprintf("holds %q; names are letters, digits and hyphens", r))
			break
		}
	}
	if name != dir {
		bad(fmt.Sprintf("differs from its folder %q; the folder's name is the skill's id", dir))
	}
}

func (p *parser) checkDescription(d string, line int) {
	n := len([]rune(d))
	switch {
	case n == 0:
		return // reported by parse, with the fallback used
	case n > MaxDescription:
		p.add(line, Warning, fmt.Sprintf("description has %d characters; the format allows %d, and it is cut at %d", n, MaxSpecDesc, MaxDescription))
	case n > MaxSpecDesc:
		p.add(line, Warning, fmt.Sprintf("description has %d characters; the format allows %d", n, MaxSpecDesc))
	}
	if strings.ContainsAny(d, "<>") {
		p.add(line, Warning, "description holds < or >, which Anthropic's skill-creator validator refuses")
	}
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}
