package tool

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// TestEveryKindHandled loops over the constants up to kindEnd, not over
// the hand-kept Kinds list, so a Kind added without a name, a plain
// rendering, a wire form or a place in Kinds fails here.
func TestEveryKindHandled(t *testing.T) {
	t.Parallel()
	if len(Kinds()) != int(kindEnd)-1 {
		t.Errorf("Kinds() lists %d kinds, the constants define %d", len(Kinds()), kindEnd-1)
	}
	for k := KindText; k < kindEnd; k++ {
		if !slices.Contains(Kinds(), k) {
			t.Errorf("kind %d is missing from Kinds()", k)
		}
		if strings.HasPrefix(k.String(), "Kind(") {
			t.Errorf("kind %d has no name", k)
		}
		if strings.HasPrefix(Result{Blocks: []Block{{Kind: k}}}.PlainText(), "[unknown") {
			t.Errorf("kind %s has no plain rendering", k)
		}
		b := Block{Kind: k, Text: "t", JSON: json.RawMessage(`1`), MIME: "text/plain", URI: "file:///x"}
		raw, err := json.Marshal(b)
		if err != nil {
			t.Errorf("kind %s: %v", k, err)
			continue
		}
		var back Block
		if err := json.Unmarshal(raw, &back); err != nil || back.Kind != k {
			t.Errorf("kind %s does not survive its wire form %s: %v, %v", k, raw, back.Kind, err)
		}
	}
}
