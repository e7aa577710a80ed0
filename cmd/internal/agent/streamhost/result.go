package streamhost

import (
	"bytes"
	"encoding/json"
)

// patchResult adds the structured answer, which only the host knows, to
// the printer's result line as structured_output, keeping the printer's
// keys and their order.
func (h *host) patchResult(line []byte) []byte {
	v := h.structured.answerJSON()
	if v == nil {
		return line
	}
	var head struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(line, &head) != nil || head.Type != "result" {
		return line
	}
	return spliceKey(line, "structured_output", v)
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
