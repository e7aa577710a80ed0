package skills

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// fileLines is a SKILL.md split into lines, with the front matter's span.
type fileLines struct {
	lines []string
	close int // index of the closing --- line; 0 when there is no front matter
}

// splitFront finds the front matter: a first line of ---, the fields,
// and a line of --- that closes them. ok is false when the file opens
// front matter that never closes.
func splitFront(text string) (f fileLines, hasFront, ok bool) {
	f.lines = strings.Split(text, "\n")
	if strings.TrimRight(f.lines[0], " \t") != "---" {
		return f, false, true
	}
	for i := 1; i < len(f.lines); i++ {
		if strings.TrimRight(f.lines[i], " \t") == "---" {
			f.close = i
			return f, true, true
		}
	}
	return f, true, false
}

// parse reads one SKILL.md of the skill id. It returns nil when the file
// cannot be loaded; the problems say why, and what else is wrong.
func parse(file, id string, data []byte) (*Skill, []Problem) {
	p := &parser{file: file}
	text := strings.TrimPrefix(string(data), "\ufeff")
	text = strings.ReplaceAll(text, "\r\n", "\n")
	sk := &Skill{ID: id, UserInvocable: true}
	f, hasFront, ok := splitFront(text)
	if !ok {
		p.add(1, Error, "the front matter opened on line 1 is never closed: end the fields with a line holding only ---")
		return nil, p.problems
	}
	var fields *yaml.Node
	if hasFront {
		sk.Body = strings.TrimLeft(strings.Join(f.lines[f.close+1:], "\n"), "\n")
		fields = p.yaml(f.lines[1:f.close])
		if fields == nil {
			return nil, p.problems
		}
		p.fields(sk, fields)
	} else {
		sk.Body = text
		p.add(1, Warning, "no front matter: a SKILL.md begins with a line of ---, the fields name and description, and a closing ---")
	}
	if sk.Description == "" {
		heading := firstHeading(sk.Body)
		if heading == "" {
			p.add(p.line(fields, "description", 1), Error, "no description, and no heading in the instructions to use instead: "+
				"add a description that says what the skill does and when to use it")
			return nil, p.problems
		}
		if hasFront {
			p.add(p.line(fields, "description", 1), Warning, fmt.Sprintf("no description; the first heading (%q) is used", heading))
		}
		sk.Description = heading
	}
	sk.Description = oneLine(sk.Description)
	if n := len([]rune(sk.Description)); n > MaxDescription {
		sk.Description = string([]rune(sk.Description)[:MaxDescription-1]) + "…"
	}
	return sk, p.problems
}

type parser struct {
	file     string
	problems []Problem
	offset   int // file line of the first front matter line, less one
}

func (p *parser) add(line int, sev Severity, msg string) {
	p.problems = append(p.problems, Problem{File: p.file, Line: line, Severity: sev, Message: msg})
}

// line is the file line of key's value in fields, or def.
func (p *parser) line(fields *yaml.Node, key string, def int) int {
	if fields != nil {
		for i := 0; i+1 < len(fields.Content); i += 2 {
			if fields.Content[i].Value == key {
				return fields.Content[i].Line + p.offset
			}
		}
	}
	return def
}

var yamlLine = regexp.MustCompile(`line (\d+)`)

// yaml parses the front matter's lines (file lines 2 on) into a mapping
// node. A value holding ": " unquoted, which YAML refuses and people
// write, is retried quoted, with a warning.
func (p *parser) yaml(lines []string) *yaml.Node {
	p.offset = 1
	doc, err := decode(strings.Join(lines, "\n"))
	if err != nil {
		if fixed, at := quoteColons(lines); len(at) > 0 {
			if d, err2 := decode(strings.Join(fixed, "\n")); err2 == nil {
				for _, i := range at {
					p.add(i+2, Warning, "the value holds \": \", which YAML reads as another mapping; it was read as text, but quote it")
				}
				doc, err = d, nil
			}
		}
	}
	if err != nil {
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		line := 1
		if m := yamlLine.FindStringSubmatch(msg); m != nil {
			n, _ := strconv.Atoi(m[1])
			line = n + p.offset
			msg = strings.Replace(msg, m[0], "line "+strconv.Itoa(line), 1)
			if n-1 < len(lines) && n >= 1 && strings.Contains(lines[n-1], "\t") ||
				strings.Contains(msg, "tab") {
				msg += " (YAML allows no tabs for indentation: use spaces)"
			}
		}
		msg = strings.TrimPrefix(msg, "line "+strconv.Itoa(line)+": ")
		p.add(line, Error, "the front matter is not valid YAML: "+msg)
		return nil
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return &yaml.Node{Kind: yaml.MappingNode}
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		p.add(root.Line+p.offset, Error, "the front matter is not a set of fields (name: …, description: …)")
		return nil
	}
	return root
}

func decode(s string) (*yaml.Node, error) {
	var doc yaml.Node
	err := yaml.Unmarshal([]byte(s), &doc)
	return &doc, err
}

var plainField = regexp.MustCompile(`^([A-Za-z0-9_-]+):[ \t]+(.*)$`)

// quoteColons quotes the plain values of top-level fields that hold ": ",
// returning the lines and the indexes changed.
func quoteColons(lines []string) ([]string, []int) {
	out := make([]string, len(lines))
	copy(out, lines)
	var at []int
	for i, l := range lines {
		m := plainField.FindStringSubmatch(l)
		if m == nil || !strings.Contains(m[2], ": ") || strings.ContainsAny(m[2][:1], `"'|>[{&*!`) {
			continue
		}
		out[i] = m[1] + ": " + strconv.Quote(strings.TrimSpace(m[2]))
		at = append(at, i)
	}
	return out, at
}

// firstHeading is the text of the first heading of body, else its first
// line of text.
func firstHeading(body string) string {
	first := ""
	for _, l := range strings.Split(body, "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "#") {
			if h := strings.TrimSpace(strings.TrimLeft(l, "#")); h != "" {
				return h
			}
		}
		if first == "" && l != "" {
			first = l
		}
	}
	return first
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
