package streamhost

import (
	"bytes"
	"encoding/json"
)

// patchResult adds to the printer's result line what only the host
// knows, keeping the printer's keys and their order: the structured
// answer (structured_output), and for an error result that has none the
// errors list the SDK reads from every error result (it fails the whole
// session on an error result without one).
func (h *host) patchResult(line []byte) []byte {
	var head struct {
		Type    string          `json:"type"`
		IsError bool            `json:"is_error"`
		Result  string          `json:"result"`
		Errors  json.RawMessage `json:"errors"`
	}
	if json.Unmarshal(line, &head) != nil || head.Type != "result" {
		return line
	}
	if v := h.structured.answerJSON(); v != nil {
		line = spliceKey(line, "structured_output", v)
	}
	if head.IsError && head.Errors == nil {
		errs, _ := json.Marshal([]string{head.Result})
		line = spliceKey(line, "errors", errs)
	}
	return line
}

// spliceKey adds "key": value as the last member of the JSON object on
// line.
func spliceKey(line []byte, key string, value json.RawMessage) []byte {
	end := bytes.LastIndexByte(line, '}')
	if end < 0 {
		return line
	}
	k, _ := json.Marshal(key)
	var b bytes.Buffer
	b.Write(line[:end])
	b.WriteByte(',')
	b.Write(k)
	b.WriteByte(':')
	if json.Compact(&b, value) != nil {
		return line
	}
	b.Write(line[end:])
	return b.Bytes()
}
