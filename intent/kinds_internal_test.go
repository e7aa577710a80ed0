package intent

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// TestEveryEventKindHandled loops up to the sentinel, not over the
// hand-kept list, so a kind added without a name, a place in EventKinds or
// a rendering in ResultOf fails here.
func TestEveryEventKindHandled(t *testing.T) {
	t.Parallel()
	for k := ToolOutput; k < eventKindEnd; k++ {
		if !slices.Contains(EventKinds(), k) {
			t.Errorf("kind %s is missing from EventKinds", k)
		}
		if strings.HasPrefix(k.String(), "EventKind(") {
			t.Errorf("kind %d has no name", k)
		}
		ev := Event{Kind: k, Value: json.RawMessage(`1`), Message: "m"}
		if res := ResultOf([]Event{ev}); strings.Contains(res.PlainText(), "unknown agent event") {
			t.Errorf("ResultOf does not handle %v", k)
		}
	}
}
