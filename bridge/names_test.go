package bridge

import (
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/indusagi/induscode/tool"
)

func TestQualify(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 80)
	tests := []struct{ server, tool, want string }{
		{"github", "create_issue", "github__create_issue"},
		{"everything", "get-sum", "everything__get-sum"},
		{"my server", "files/read.v2", "my_server__files_read_v2"},
		{"ünï", "tōol", "_n___t_ol"}, // one _ per character, not per byte
		{"s", long, ""},
	}
	for _, tc := range tests {
		got := Qualify(tc.server, tc.tool)
		if tc.server == "s" {
			// The hash suffix is fixed by the input; check the shape and
			// that it is stable.
			if len(got) != 64 || !strings.HasPrefix(got, ("s__" + long)[:55]+"_") || got != Qualify(tc.server, tc.tool) {
				t.Errorf("Qualify(s, long) = %q", got)
			}
			continue
		}
		if got != tc.want {
			t.Errorf("Qualify(%q, %q) = %q, want %q", tc.server, tc.tool, got, tc.want)
		}
	}
	if Qualify("s", long+"a") == Qualify("s", long+"b") {
		t.Error("two long names that differ only past the cut collide")
	}
}

func TestPropertyQualifyIsValid(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		server := rapid.StringN(1, 40, -1).Draw(t, "server")
		name := rapid.StringN(1, 120, -1).Draw(t, "tool")
		q := Qualify(server, name)
		if !tool.ValidName(q) {
			t.Fatalf("Qualify(%q, %q) = %q, not a valid tool name", server, name, q)
		}
		if q != Qualify(server, name) {
			t.Fatal("not deterministic")
		}
	})
}

func TestNormalizeSchema(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   any
		want string
		note string
	}{
		{"object kept", map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"type": "string"}}, "required": []any{"a"}},
			`{"properties":{"a":{"type":"string"}},"required":["a"],"type":"object"}`, ""},
		{"type added", map[string]any{"properties": map[string]any{}}, `{"properties":{},"type":"object"}`, `no "type"`},
		{"properties added", map[string]any{"type": "object"}, `{"properties":{},"type":"object"}`, ""},
		{"type list with object", map[string]any{"type": []any{"object", "null"}}, `{"properties":{},"type":"object"}`, ""},
		{"null properties", map[string]any{"type": "object", "properties": nil}, `{"properties":{},"type":"object"}`, `"properties": null`},
		{"absent", nil, `{"type":"object","properties":{}}`, "not a JSON object"},
		{"array", []any{1}, `{"type":"object","properties":{}}`, "not a JSON object"},
		{"string type", map[string]any{"type": "string"}, `{"type":"object","properties":{}}`, `type "string", not object`},
		{"bad type", map[string]any{"type": 7.0}, `{"type":"object","properties":{}}`, "malformed type"},
	}
	for _, tc := range tests {
		got, note := normalizeSchema(tc.in)
		if string(got) != tc.want {
			t.Errorf("%s: schema %s, want %s", tc.name, got, tc.want)
		}
		if (tc.note == "") != (note == "") || !strings.Contains(note, tc.note) {
			t.Errorf("%s: note %q, want %q", tc.name, note, tc.note)
		}
	}
}
