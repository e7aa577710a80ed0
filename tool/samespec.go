package tool

import (
	"bytes"
	"encoding/json"
	"reflect"
)

// SameSpec reports whether a and b describe the same tool to a client:
// the same name, label, description and read-only flag, and input and
// output schemas that are the same JSON value (member order, whitespace
// and number spelling such as 1.0 for 1 do not count, so a spec replayed
// from a log that stored other bytes is still the same). Hosts that keep a
// listing use it to tell a changed tool from one listed again.
func SameSpec(a, b Spec) bool {
	return a.Name == b.Name && a.Label == b.Label && a.Description == b.Description &&
		a.ReadOnly == b.ReadOnly && sameJSON(a.InputSchema, b.InputSchema) &&
		sameJSON(a.OutputSchema, b.OutputSchema)
}

// sameJSON compares two JSON values; text that does not parse equals only
// the same text.
func sameJSON(a, b json.RawMessage) bool {
	if bytes.Equal(a, b) {
		return true
	}
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return false
	}
	return reflect.DeepEqual(va, vb)
}
