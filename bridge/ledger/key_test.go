package ledger

import (
	"encoding/json"
	"regexp"
	"testing"
)

var contentKeyRe = regexp.MustCompile(`^bk_[0-9a-f]{32}$`)

func TestContentKey(t *testing.T) {
	t.Parallel()
	base := ContentKey("srv__echo", json.RawMessage(`{"type":"object","properties":{"message":{"type":"string"}}}`))
	if !contentKeyRe.MatchString(string(base)) {
		t.Fatalf("key %q does not look like bk_ + 32 hex", base)
	}
	tests := []struct {
		name   string
		tool   string
		schema string
		same   bool
	}{
		{"same input", "srv__echo", `{"type":"object","properties":{"message":{"type":"string"}}}`, true},
		{"member order and spacing", "srv__echo", `{ "properties": {"message": {"type": "string"}}, "type": "object" }`, true},
		{"other name", "srv__echo2", `{"type":"object","properties":{"message":{"type":"string"}}}`, false},
		{"schema changed", "srv__echo", `{"type":"object","properties":{"message":{"type":"number"}}}`, false},
		{"no schema", "srv__echo", ``, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k := ContentKey(tc.tool, json.RawMessage(tc.schema))
			if (k == base) != tc.same {
				t.Errorf("ContentKey(%s, %s) = %s; same as base = %v, want %v", tc.tool, tc.schema, k, k == base, tc.same)
			}
		})
	}
	if ContentKey("a", nil) != ContentKey("a", json.RawMessage("null")) {
		t.Error("a missing schema must key as null")
	}
	if ContentKey("a", nil) == ContentKey("a", json.RawMessage("{}")) {
		t.Error("a missing schema must differ from {}")
	}
	if k := ContentKey("a", json.RawMessage("{not json")); !contentKeyRe.MatchString(string(k)) {
		t.Errorf("an invalid schema still gets a key, got %q", k)
	}
	if _, ok := ParseKey(string(base)); !ok {
		t.Errorf("ParseKey refuses %s", base)
	}
}

func TestULIDKeyIncreases(t *testing.T) {
	t.Parallel()
	prev := ULIDKey()
	for range 20000 {
		k := ULIDKey()
		if k <= prev {
			t.Fatalf("ULID keys not increasing: %s after %s", k, prev)
		}
		if _, ok := ParseKey(string(k)); !ok {
			t.Fatalf("ParseKey refuses %s", k)
		}
		prev = k
	}
}

func TestParseKey(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", "bk_", "xx_0123456789abcdef0123456789abcdef", "bk_0123456789ABCDEF0123456789abcdef", "bk_0123", "bk_zzzzzzzzzzzzzzzzzzzzzzzzzz"} {
		if _, ok := ParseKey(s); ok {
			t.Errorf("ParseKey(%q) accepted", s)
		}
	}
}
