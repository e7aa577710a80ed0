package ledger

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzCanonical checks that Canonical accepts exactly the valid JSON values,
// that its output is valid JSON, a fixed point, and denotes the same value.
func FuzzCanonical(f *testing.F) {
	for _, s := range []string{`{"b":1,"a":[1,2.0,{"d":null,"c":"x"}]}`, `1e21`, `"\u00e9\n"`, `[]`, `{"a":1,"a":2}`, `{`, `-0`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		out, err := Canonical(in)
		validIn := json.Valid(in)
		if err != nil {
			if validIn && bytes.Count(in, []byte("["))+bytes.Count(in, []byte("{")) < 5000 {
				t.Fatalf("Canonical refused valid JSON %q: %v", in, err)
			}
			return
		}
		if !validIn {
			t.Fatalf("Canonical accepted invalid JSON %q", in)
		}
		if !json.Valid(out) {
			t.Fatalf("Canonical(%q) = %q, not JSON", in, out)
		}
		again, err := Canonical(out)
		if err != nil || !bytes.Equal(again, out) {
			t.Fatalf("not a fixed point: %q -> %q (%v)", out, again, err)
		}
		var a, b any
		_ = json.Unmarshal(in, &a)
		_ = json.Unmarshal(out, &b)
		if !sameJSON(a, b) {
			t.Fatalf("value changed: %q -> %q", in, out)
		}
	})
}

// sameJSON compares decoded JSON values; numbers compare as doubles, so -0
// equals 0 and an out-of-range literal kept as written still decodes alike.
func sameJSON(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			if w, ok := y[k]; !ok || !sameJSON(v, w) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !sameJSON(x[i], y[i]) {
				return false
			}
		}
		return true
	default:
		return a == b
	}
}

// FuzzContentKey checks that keys are always well formed.
func FuzzContentKey(f *testing.F) {
	f.Add("srv__echo", []byte(`{"type":"object"}`))
	f.Add("", []byte(``))
	f.Add("x", []byte(`{not json`))
	f.Fuzz(func(t *testing.T, name string, schema []byte) {
		k := ContentKey(name, schema)
		if _, ok := ParseKey(string(k)); !ok {
			t.Fatalf("ContentKey(%q, %q) = %q, malformed", name, schema, k)
		}
	})
}
