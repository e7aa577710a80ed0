package files

import (
	"encoding/json"
	"strconv"

	"github.com/google/jsonschema-go/jsonschema"
)

// setInt makes property name of s an integer with a minimum and a default,
// which the inferred schema cannot say.
func setInt(s *jsonschema.Schema, name string, minimum, def int) {
	p := s.Properties[name]
	p.Types, p.Type = nil, "integer"
	m := float64(minimum)
	p.Minimum = &m
	p.Default = json.RawMessage(strconv.Itoa(def))
}

// setMax gives integer property name of s a maximum.
func setMax(s *jsonschema.Schema, name string, maximum int) {
	m := float64(maximum)
	s.Properties[name].Maximum = &m
}

// setDefault gives property name of s a default value.
func setDefault(s *jsonschema.Schema, name string, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	s.Properties[name].Default = b
}

// arrayOf makes property name of s an array (not array-or-null, as a Go
// slice infers).
func arrayOf(s *jsonschema.Schema, name string) *jsonschema.Schema {
	p := s.Properties[name]
	p.Types, p.Type = nil, "array"
	return p
}

func mustJSON(s *jsonschema.Schema) json.RawMessage {
	b, err := s.MarshalJSON()
	if err != nil {
		panic(err)
	}
	return b
}
