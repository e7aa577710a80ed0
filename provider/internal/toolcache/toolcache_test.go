package toolcache

import (
	"encoding/json"
	"testing"

	"github.com/indusagi/induscode/provider"
)

// An unchanged tool list is converted once; a changed schema, even with
// the same names, is converted again.
func TestToolCacheConvertsAChangedListAgain(t *testing.T) {
	var c Cache[string]
	n := 0
	conv := func(defs []provider.ToolDef) ([]string, error) {
		n++
		out := make([]string, len(defs))
		for i, d := range defs {
			out[i] = d.Name + string(d.InputSchema)
		}
		return out, nil
	}
	schema := json.RawMessage(`{"type":"object"}`)
	defs := []provider.ToolDef{{Name: "read", InputSchema: schema}}
	for range 3 {
		if got, _ := c.Get(defs, conv); got[0] != `read{"type":"object"}` {
			t.Fatalf("got %q", got)
		}
	}
	schema[2] = 'T' // the caller reuses its bytes: the cache kept its own
	if got, _ := c.Get(defs, conv); n != 2 || got[0] != `read{"Type":"object"}` {
		t.Fatalf("after a change: %d conversions, %q", n, got)
	}
}
