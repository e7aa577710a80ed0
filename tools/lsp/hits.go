package lsp

import (
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/indusagi/induscode/tool"
)

// hit is one location in a symbols answer.
type hit struct {
	path      string // relative to the workspace when inside it
	line, col int    // 1-based, col in characters
	text      string // the line's text, trimmed
	note      string // what is there ("function Open"), when known
}

// hitAt turns a server location into a hit, reading the line's text.
func (q query) hitAt(l location, enc string) hit {
	abs := uriPath(l.URI)
	h := hit{path: abs, line: l.Range.Start.Line + 1, col: l.Range.Start.Character + 1}
	if abs == "" {
		h.path = l.URI
		return h
	}
	h.path = q.env.Rel(abs)
	if text, ok := readSmall(abs); ok {
		line := lineOf(text, l.Range.Start.Line)
		h.col = toRunes(line, l.Range.Start.Character, enc) + 1
		h.text = strings.TrimSpace(line)
	}
	return h
}

func (q query) hitsOf(locs []location, enc string) []hit {
	hits := make([]hit, len(locs))
	for i, l := range locs {
		hits[i] = q.hitAt(l, enc)
	}
	return hits
}

// list renders hits sorted by path, line and column, without duplicates,
// capped at MaxResults.
func (q query) list(title string, hits []hit) tool.Result {
	slices.SortFunc(hits, func(a, b hit) int {
		return cmp.Or(cmp.Compare(a.path, b.path), cmp.Compare(a.line, b.line), cmp.Compare(a.col, b.col))
	})
	hits = slices.CompactFunc(hits, func(a, b hit) bool { return a.path == b.path && a.line == b.line && a.col == b.col })
	if len(hits) == 0 {
		return tool.Textf("No results for %s.", title)
	}
	var b strings.Builder
	for i, h := range hits {
		if i == MaxResults {
			fmt.Fprintf(&b, "… and %d more (narrow the question)\n", len(hits)-MaxResults)
			break
		}
		fmt.Fprintf(&b, "%s:%d:%d:", h.path, h.line, h.col)
		if h.note != "" {
			fmt.Fprintf(&b, " [%s]", h.note)
		}
		if h.text != "" {
			fmt.Fprintf(&b, " %s", h.text)
		}
		b.WriteByte('\n')
	}
	return tool.Text(strings.TrimSuffix(b.String(), "\n"))
}

// definitionLocations reads a definition answer: a Location, a list of
// them, or a list of LocationLinks.
func definitionLocations(raw json.RawMessage) []location {
	var one location
	if json.Unmarshal(raw, &one) == nil && one.URI != "" {
		return []location{one}
	}
	var many []location
	if json.Unmarshal(raw, &many) == nil && len(many) > 0 && many[0].URI != "" {
		return many
	}
	var links []locationLink
	if json.Unmarshal(raw, &links) == nil {
		out := make([]location, 0, len(links))
		for _, l := range links {
			out = append(out, location{URI: l.TargetURI, Range: l.TargetSelectionRange})
		}
		return out
	}
	return nil
}

// hoverText reads hover contents: MarkupContent, a MarkedString or a list
// of them.
func hoverText(raw json.RawMessage) string {
	var markup struct {
		Value string `json:"value"`
	}
	if json.Unmarshal(raw, &markup) == nil && markup.Value != "" {
		return strings.TrimSpace(markup.Value)
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return strings.TrimSpace(s)
	}
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) == nil {
		var parts []string
		for _, item := range list {
			if t := hoverText(item); t != "" {
				parts = append(parts, t)
			}
		}
		return strings.Join(parts, "\n\n")
	}
	return ""
}

func qualified(container, name string) string {
	if container == "" {
		return name
	}
	return container + "." + name
}

func extOf(path string) string {
	if ext := filepath.Ext(path); ext != "" {
		return ext
	}
	return "extension-less"
}

// projectMarker returns a file of lang's kind that shows root is a project
// of that language, so a workspace-wide question can start its server.
func projectMarker(root, lang string) string {
	markers := map[string][]string{
		"go":         {"go.mod", "go.work"},
		"typescript": {"tsconfig.json", "jsconfig.json", "package.json"},
		"python":     {"pyproject.toml", "setup.py", "requirements.txt", "pyrightconfig.json"},
	}[lang]
	for _, m := range markers {
		if _, err := os.Stat(filepath.Join(root, m)); err == nil {
			// clientFor picks the server by extension: name a file of the
			// language, which need not exist.
			return filepath.Join(root, "marker"+map[string]string{"go": ".go", "typescript": ".ts", "python": ".py"}[lang])
		}
	}
	return ""
}
