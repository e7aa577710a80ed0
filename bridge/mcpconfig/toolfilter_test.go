package mcpconfig

import (
	"slices"
	"strings"
	"testing"
)

func TestToolFilterAdmits(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		filter ToolFilter
		admit  []string
		refuse []string
	}{
		{"empty admits all", ToolFilter{}, []string{"read_file", "write_file"}, nil},
		{"allow globs", ToolFilter{Allow: []string{"read_*", "list_directory"}}, []string{"read_file", "read_text_file", "list_directory"}, []string{"write_file", "list_directory_with_sizes"}},
		{"deny wins", ToolFilter{Allow: []string{"read_*"}, Deny: []string{"read_media_file"}}, []string{"read_file"}, []string{"read_media_file", "edit_file"}},
		{"deny only", ToolFilter{Deny: []string{"*_file", "move_*"}}, []string{"list_directory"}, []string{"write_file", "move_file"}},
	} {
		for _, n := range tc.admit {
			if !tc.filter.Admits(n) {
				t.Errorf("%s: %q refused", tc.name, n)
			}
		}
		for _, n := range tc.refuse {
			if tc.filter.Admits(n) {
				t.Errorf("%s: %q admitted", tc.name, n)
			}
		}
	}
}

// A row's "tools" member is parsed strictly: a bad pattern or a misspelt
// key skips the row with a warning rather than grafting everything.
func TestToolFilterInConfig(t *testing.T) {
	t.Parallel()
	servers, warnings := Parse([]byte(`{"servers": {
		"ok":   {"command": "x", "tools": {"allow": ["read_*"], "deny": ["read_media_file"]}},
		"bad":  {"command": "x", "tools": {"allow": ["read_[*"]}},
		"typo": {"command": "x", "tools": {"alow": ["read_*"]}}
	}}`), "mcp.json", func(string) (string, bool) { return "", false })
	if len(servers) != 1 || servers[0].Name != "ok" || len(servers[0].Tools.Allow) != 1 || len(servers[0].Tools.Deny) != 1 {
		t.Fatalf("servers %+v", servers)
	}
	var all []string
	for _, w := range warnings {
		all = append(all, w.String())
	}
	joined := strings.Join(all, "\n")
	for _, want := range []string{`server "bad": "tools" has the pattern "read_[*", which is not a valid glob; skipped`, `server "typo": "tools" must be {"allow"`} {
		if !strings.Contains(joined, want) {
			t.Errorf("warnings lack %q:\n%s", want, joined)
		}
	}
}

func TestTransportsNamed(t *testing.T) {
	t.Parallel()
	if len(Transports()) != int(transportEnd)-1 {
		t.Errorf("Transports() lists %d of %d transports", len(Transports()), transportEnd-1)
	}
	for tr := Stdio; tr < transportEnd; tr++ {
		if !slices.Contains(Transports(), tr) {
			t.Errorf("transport %d is missing from Transports()", tr)
		}
		if strings.HasPrefix(tr.String(), "Transport(") {
			t.Errorf("transport %d has no name", tr)
		}
	}
}
