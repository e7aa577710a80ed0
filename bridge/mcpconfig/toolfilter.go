package mcpconfig

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// ToolFilter chooses which of a server's tools are grafted, by the
// server's own tool names, with glob patterns ("read_*", "*_file"). A tool
// is grafted when Allow is empty or one of its patterns matches, and no
// Deny pattern matches: deny wins. In a config row:
//
//	"tools": {"allow": ["read_*", "list_*"], "deny": ["*_secret"]}
type ToolFilter struct {
	Allow []string `json:"allow,omitempty"`
	Deny  []string `json:"deny,omitempty"`
}

// Admits reports whether the filter grafts the tool named name.
func (f ToolFilter) Admits(name string) bool {
	for _, p := range f.Deny {
		if ok, _ := doublestar.Match(p, name); ok {
			return false
		}
	}
	if len(f.Allow) == 0 {
		return true
	}
	for _, p := range f.Allow {
		if ok, _ := doublestar.Match(p, name); ok {
			return true
		}
	}
	return false
}

// parseToolFilter reads the "tools" member of a row. Patterns that are not
// valid globs are errors, so a typo never silently grafts everything.
func parseToolFilter(raw json.RawMessage) (ToolFilter, error) {
	var f ToolFilter
	if len(raw) == 0 || strings.TrimSpace(string(raw)) == "null" {
		return f, nil
	}
	var w struct {
		Allow []string `json:"allow"`
		Deny  []string `json:"deny"`
	}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&w); err != nil {
		return f, fmt.Errorf(`"tools" must be {"allow": [patterns], "deny": [patterns]} (%v)`, err)
	}
	for _, list := range [][]string{w.Allow, w.Deny} {
		for _, p := range list {
			if strings.TrimSpace(p) == "" || !doublestar.ValidatePattern(p) {
				return f, fmt.Errorf(`"tools" has the pattern %q, which is not a valid glob`, p)
			}
		}
	}
	return ToolFilter{Allow: w.Allow, Deny: w.Deny}, nil
}
