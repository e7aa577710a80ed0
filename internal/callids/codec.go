package callids

import (
	"bytes"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// wrapMark begins every id the codec wraps. It starts with a NUL, which
// encoding/json writes as \u0000, so a wrapped id is found in encoded
// JSON by escapedMark; the SDK's own ids are numbers and never carry it.
const wrapMark = "\x00raw:"

// escapedMark is wrapMark's first bytes as JSON encodes them.
var escapedMark = []byte(`\u0000raw:`)

// Members of the protocol that carry an id the client wrote.
const (
	// SubscriptionIDKey is the _meta key of a subscriptions/listen
	// stream's notifications and result: the id of the listen request.
	SubscriptionIDKey = "io.modelcontextprotocol/subscriptionId"
	progressTokenKey  = "progressToken"
	requestIDKey      = "requestId"
	metaKey           = "_meta"
)

// Wrap returns the string the SDK is given in place of raw, an id as the
// client wrote it (a JSON number or string).
func Wrap(raw json.RawMessage) string { return wrapMark + string(bytes.TrimSpace(raw)) }

// Unwrap returns the client's JSON from a string made by Wrap; ok is
// false for any other string.
func Unwrap(s string) (raw json.RawMessage, ok bool) {
	rest, ok := cutPrefix(s, wrapMark)
	if !ok || !json.Valid([]byte(rest)) {
		return nil, false
	}
	return json.RawMessage(rest), true
}

func cutPrefix(s, prefix string) (string, bool) {
	if len(s) < len(prefix) || s[:len(prefix)] != prefix {
		return s, false
	}
	return s[len(prefix):], true
}

// wrapJSON is Wrap's string as JSON.
func wrapJSON(raw json.RawMessage) json.RawMessage {
	b, _ := json.Marshal(Wrap(raw))
	return b
}

// unwrapJSON returns the client's JSON when raw is a JSON string made by
// Wrap.
func unwrapJSON(raw json.RawMessage) (json.RawMessage, bool) {
	if !bytes.Contains(raw, escapedMark) {
		return nil, false
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return nil, false
	}
	return Unwrap(s)
}

// wrapToken wraps the progress token of a call's params (in _meta), so
// that a number past 2^53 keeps its digits through the SDK.
func wrapToken(params json.RawMessage) json.RawMessage {
	if !bytes.Contains(params, []byte(`"`+progressTokenKey+`"`)) {
		return params
	}
	var p map[string]json.RawMessage
	if json.Unmarshal(params, &p) != nil {
		return params
	}
	var meta map[string]json.RawMessage
	if json.Unmarshal(p[metaKey], &meta) != nil {
		return params
	}
	tok := bytes.TrimSpace(meta[progressTokenKey])
	if _, err := key(tok); err != nil {
		return params // absent or not a token: the SDK's to refuse
	}
	meta[progressTokenKey] = wrapJSON(tok)
	m, err := json.Marshal(meta)
	if err != nil {
		return params
	}
	p[metaKey] = m
	out, err := json.Marshal(p)
	if err != nil {
		return params
	}
	return out
}

// restoreMembers puts the client's JSON back into an object the SDK
// wrote (a notification's params, a result): a progress token, a
// requestId, and the subscriptionId and progress token of its _meta. It
// returns obj unchanged when nothing in it was wrapped.
func restoreMembers(obj json.RawMessage) json.RawMessage {
	if !bytes.Contains(obj, escapedMark) {
		return obj
	}
	var p map[string]json.RawMessage
	if json.Unmarshal(obj, &p) != nil {
		return obj
	}
	changed := restoreIn(p, progressTokenKey, requestIDKey)
	if raw, ok := p[metaKey]; ok && bytes.Contains(raw, escapedMark) {
		var meta map[string]json.RawMessage
		if json.Unmarshal(raw, &meta) == nil && restoreIn(meta, SubscriptionIDKey, progressTokenKey) {
			if m, err := json.Marshal(meta); err == nil {
				p[metaKey] = m
				changed = true
			}
		}
	}
	if !changed {
		return obj
	}
	out, err := json.Marshal(p)
	if err != nil {
		return obj
	}
	return out
}

// restoreIn unwraps the named members of m; it reports whether any was.
func restoreIn(m map[string]json.RawMessage, names ...string) bool {
	changed := false
	for _, name := range names {
		if raw, ok := unwrapJSON(m[name]); ok {
			m[name] = raw
			changed = true
		}
	}
	return changed
}

// Restore puts the client's JSON back into a notification or a call the
// server sends (see restoreMembers). A response's id is [Book.Answer]'s
// and [Encode]'s; its result is restored by Encode.
func Restore(req *jsonrpc.Request) {
	req.Params = restoreMembers(req.Params)
}

// RestoreJSON is the codec's way back for a transport that passes the
// SDK's encoded messages on (the SDK's event streams): in one message or
// a batch, a response's id and the wrapped members of its result, error
// data or params get the client's JSON back. data is returned as it is
// when it holds nothing wrapped.
func RestoreJSON(data []byte) []byte {
	if !bytes.Contains(data, escapedMark) {
		return data
	}
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		var batch []json.RawMessage
		if json.Unmarshal(trimmed, &batch) != nil {
			return data
		}
		for i, m := range batch {
			batch[i] = restoreMessage(m)
		}
		out, err := json.Marshal(batch)
		if err != nil {
			return data
		}
		return out
	}
	return restoreMessage(data)
}

func restoreMessage(data []byte) []byte {
	var m map[string]json.RawMessage
	if json.Unmarshal(data, &m) != nil {
		return data
	}
	changed := restoreIn(m, "id")
	for _, member := range []string{"params", "result"} {
		if obj, ok := m[member]; ok {
			if r := restoreMembers(obj); !bytes.Equal(r, obj) {
				m[member] = r
				changed = true
			}
		}
	}
	if !changed {
		return data
	}
	out, err := json.Marshal(m)
	if err != nil {
		return data
	}
	return out
}

// WrapJSON is the codec's way in for a transport that hands the client's
// encoded messages to the SDK as they are (the SDK's event streams): in
// one message or a batch, a call's id, a cancellation's requestId and a
// progress token are wrapped. Responses to the server's own calls keep
// their ids (the SDK made them). What does not parse is returned as it
// is, for the SDK to refuse.
func WrapJSON(body []byte) []byte {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		var batch []json.RawMessage
		if json.Unmarshal(trimmed, &batch) != nil {
			return body
		}
		for i, m := range batch {
			batch[i] = wrapMessage(m)
		}
		out, err := json.Marshal(batch)
		if err != nil {
			return body
		}
		return out
	}
	return wrapMessage(body)
}

func wrapMessage(data []byte) []byte {
	var m map[string]json.RawMessage
	if json.Unmarshal(data, &m) != nil {
		return data
	}
	var method string
	if json.Unmarshal(m["method"], &method) != nil {
		return data // a response, or not a message
	}
	if id := bytes.TrimSpace(m["id"]); len(id) > 0 && string(id) != "null" {
		if _, err := key(id); err != nil {
			return data
		}
		m["id"] = wrapJSON(id)
	}
	if params, ok := m["params"]; ok {
		params = wrapToken(params)
		if method == cancelledMethod {
			var p map[string]json.RawMessage
			if json.Unmarshal(params, &p) == nil {
				if id := bytes.TrimSpace(p[requestIDKey]); len(id) > 0 {
					if _, err := key(id); err == nil {
						p[requestIDKey] = wrapJSON(id)
						if b, err := json.Marshal(p); err == nil {
							params = b
						}
					}
				}
			}
		}
		m["params"] = params
	}
	out, err := json.Marshal(m)
	if err != nil {
		return data
	}
	return out
}
