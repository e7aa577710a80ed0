package bridge

import (
	"encoding/json"
	"fmt"
	"slices"
)

// normalizeSchema turns a server's input schema into a JSON object schema,
// the shape every model API and tool.Spec require. A schema without "type"
// gets "type":"object"; one whose type list includes "object" gets just
// that; one without "properties" gets an empty object. A schema that cannot
// describe an object (absent, null, not an object, or typed otherwise) is
// replaced by the empty object schema. note says what was changed, for the
// server's status, when the change is a fault of the server.
func normalizeSchema(in any) (out json.RawMessage, note string) {
	raw, err := json.Marshal(in)
	if err != nil {
		return emptySchema(), fmt.Sprintf("input schema cannot be encoded (%v); replaced by an empty object schema", err)
	}
	var m map[string]any
	if in == nil || json.Unmarshal(raw, &m) != nil || m == nil {
		return emptySchema(), "input schema is not a JSON object; replaced by an empty object schema"
	}
	switch t := m["type"].(type) {
	case nil:
		m["type"] = "object"
		note = `input schema has no "type"; "type":"object" was added`
	case string:
		if t != "object" {
			return emptySchema(), fmt.Sprintf("input schema has type %q, not object; replaced by an empty object schema", t)
		}
	case []any:
		if !slices.Contains(t, any("object")) {
			return emptySchema(), fmt.Sprintf("input schema has type %v, not object; replaced by an empty object schema", t)
		}
		m["type"] = "object"
	default:
		return emptySchema(), fmt.Sprintf("input schema has a malformed type %v; replaced by an empty object schema", t)
	}
	switch p := m["properties"].(type) {
	case map[string]any:
	case nil:
		if _, present := m["properties"]; present && note == "" {
			note = `input schema has "properties": null; an empty object was put in its place`
		}
		m["properties"] = map[string]any{}
	default:
		m["properties"] = map[string]any{}
		if note == "" {
			note = fmt.Sprintf(`input schema has "properties" of type %T, not an object; an empty object was put in its place`, p)
		}
	}
	out, err = json.Marshal(m)
	if err != nil {
		return emptySchema(), fmt.Sprintf("input schema cannot be encoded (%v); replaced by an empty object schema", err)
	}
	return out, note
}

func emptySchema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{}}`)
}

// outputSchema keeps a server's output schema when it describes an object,
// as MCP requires (structured content is a JSON object); otherwise the tool
// is grafted without one, and note says why.
func outputSchema(in any) (out json.RawMessage, note string) {
	if in == nil {
		return nil, ""
	}
	raw, err := json.Marshal(in)
	if err != nil {
		return nil, fmt.Sprintf("output schema cannot be encoded (%v); the tool is grafted without one", err)
	}
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil || m == nil {
		return nil, "output schema is not a JSON object; the tool is grafted without one"
	}
	if m["type"] != "object" {
		return nil, fmt.Sprintf(`output schema has type %v, not "object"; the tool is grafted without one`, m["type"])
	}
	return raw, ""
}
