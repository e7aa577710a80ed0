package tool

import (
	"encoding/json"
	"testing"
)

func TestSameSpec(t *testing.T) {
	t.Parallel()
	base := Spec{Name: "t", Label: "T", Description: "d", ReadOnly: true,
		InputSchema:  json.RawMessage(`{"type":"object","properties":{"n":{"type":"number","maximum":1.0}}}`),
		OutputSchema: json.RawMessage(`{"type":"object"}`)}
	same := base
	same.InputSchema = json.RawMessage(`{ "properties": {"n": {"maximum": 1, "type": "number"}}, "type": "object" }`)
	if !SameSpec(base, same) {
		t.Error("schemas that differ only in member order, spacing and 1.0 for 1 count as a change")
	}
	for name, change := range map[string]func(*Spec){
		"name":          func(s *Spec) { s.Name = "u" },
		"label":         func(s *Spec) { s.Label = "U" },
		"description":   func(s *Spec) { s.Description = "e" },
		"read-only":     func(s *Spec) { s.ReadOnly = false },
		"input schema":  func(s *Spec) { s.InputSchema = json.RawMessage(`{"type":"object"}`) },
		"output schema": func(s *Spec) { s.OutputSchema = nil },
		"broken schema": func(s *Spec) { s.InputSchema = json.RawMessage(`{"type":`) },
	} {
		other := base
		change(&other)
		if SameSpec(base, other) {
			t.Errorf("a spec with another %s counts as the same", name)
		}
	}
	broken := Spec{Name: "t", InputSchema: json.RawMessage(`{"type":`)}
	if !SameSpec(broken, broken) {
		t.Error("the same unparsable schema text counts as a change")
	}
}
