package callids

import (
	"bytes"
	"encoding/json"
	"io"

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
	b, _ := marshal(Wrap(raw))
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

// ClientID returns the client's JSON of an id the SDK echoed: raw itself
// unless it is a string made by Wrap.
func ClientID(raw json.RawMessage) json.RawMessage {
	if orig, ok := unwrapJSON(raw); ok {
		return orig
	}
	return raw
}

// wrapToken wraps the progress token of a call's params (in _meta), so
// that a number past 2^53 keeps its digits through the SDK.
func wrapToken(params json.RawMessage) json.RawMessage {
	if !bytes.Contains(params, []byte(`"`+progressTokenKey+`"`)) {
		return params
	}
	p, ok := parseObject(params)
	if !ok {
		return params
	}
	rawMeta, _ := p.get(metaKey)
	meta, ok := parseObject(rawMeta)
	if !ok {
		return params
	}
	tok, _ := meta.get(progressTokenKey)
	if _, err := key(tok); err != nil {
		return params // absent or not a token: the SDK's to refuse
	}
	meta.set(progressTokenKey, wrapJSON(tok))
	p.set(metaKey, meta.encode())
	return p.encode()
}

// wrapRequestID wraps the requestId of a cancellation's params.
func wrapRequestID(params json.RawMessage) json.RawMessage {
	p, ok := parseObject(params)
	if !ok {
		return params
	}
	id, _ := p.get(requestIDKey)
	if _, err := key(id); err != nil {
		return params
	}
	p.set(requestIDKey, wrapJSON(bytes.TrimSpace(id)))
	return p.encode()
}

// restoreMembers puts the client's JSON back into an object the SDK
// wrote (a notification's params, a result): a progress token, a
// requestId, and the subscriptionId and progress token of its _meta. It
// returns obj unchanged when nothing in it was wrapped.
func restoreMembers(obj json.RawMessage) json.RawMessage {
	if !bytes.Contains(obj, escapedMark) {
		return obj
	}
	p, ok := parseObject(obj)
	if !ok {
		return obj
	}
	changed := p.restore(progressTokenKey, requestIDKey)
	if raw, ok := p.get(metaKey); ok && bytes.Contains(raw, escapedMark) {
		if meta, ok := parseObject(raw); ok && meta.restore(SubscriptionIDKey, progressTokenKey) {
			p.set(metaKey, meta.encode())
			changed = true
		}
	}
	if !changed {
		return obj
	}
	return p.encode()
}

// Restore puts the client's JSON back into a notification or a call the
// server sends (see restoreMembers). A response's id is [Book.Answer]'s
// and [Encode]'s; its result is restored by Encode.
func Restore(req *jsonrpc.Request) {
	req.Params = restoreMembers(req.Params)
}

// RestoreJSON is the codec's way back for a transport that passes the
// SDK's encoded messages on (the SDK's event streams): in one message or
// a batch, a response's id and the wrapped members of its result or
// params get the client's JSON back. data is returned as it is when it
// holds nothing wrapped.
func RestoreJSON(data []byte) []byte {
	if !bytes.Contains(data, escapedMark) {
		return data
	}
	return eachMessage(data, restoreMessage)
}

func restoreMessage(data []byte) []byte {
	m, ok := parseObject(data)
	if !ok {
		return data
	}
	changed := m.restore("id")
	for _, member := range []string{"params", "result"} {
		if obj, ok := m.get(member); ok {
			if r := restoreMembers(obj); !bytes.Equal(r, obj) {
				m.set(member, r)
				changed = true
			}
		}
	}
	if !changed {
		return data
	}
	return m.encode()
}

// WrapJSON is the codec's way in for a transport that hands the client's
// encoded messages to the SDK as they are (the SDK's event streams): in
// one message or a batch, a call's id, a cancellation's requestId and a
// progress token are wrapped. Responses to the server's own calls keep
// their ids (the SDK made them). What does not parse is returned as it
// is, for the SDK to refuse.
func WrapJSON(body []byte) []byte {
	return eachMessage(body, wrapMessage)
}

func wrapMessage(data []byte) []byte {
	m, ok := parseObject(data)
	if !ok {
		return data
	}
	var method string
	if raw, _ := m.get("method"); json.Unmarshal(raw, &method) != nil {
		return data // a response, or not a message
	}
	if id, _ := m.get("id"); len(id) > 0 && string(id) != "null" {
		if _, err := key(id); err != nil {
			return data
		}
		m.set("id", wrapJSON(bytes.TrimSpace(id)))
	}
	if params, ok := m.get("params"); ok {
		params = wrapToken(params)
		if method == cancelledMethod {
			params = wrapRequestID(params)
		}
		m.set("params", params)
	}
	return m.encode()
}

// eachMessage applies fn to one message, or to each message of a batch.
func eachMessage(data []byte, fn func([]byte) []byte) []byte {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 || trimmed[0] != '[' {
		return fn(data)
	}
	var batch []json.RawMessage
	if json.Unmarshal(trimmed, &batch) != nil {
		return data
	}
	for i, m := range batch {
		batch[i] = fn(m)
	}
	out, err := marshal(batch)
	if err != nil {
		return data
	}
	return out
}

// object is a JSON object's members in the order written, so that a
// message the codec changes keeps its shape (and the members it does not
// change keep their bytes).
type object []member

type member struct {
	key string
	val json.RawMessage
}

// parseObject reads a JSON object; ok is false for anything else.
func parseObject(b []byte) (object, bool) {
	dec := json.NewDecoder(bytes.NewReader(b))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, false
	}
	var o object
	for dec.More() {
		tok, err := dec.Token()
		k, isKey := tok.(string)
		if err != nil || !isKey {
			return nil, false
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, false
		}
		o = append(o, member{k, v})
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('}') {
		return nil, false
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, false // more after the object
	}
	return o, true
}

// get returns the value of k (the last, as encoding/json reads
// duplicates).
func (o object) get(k string) (json.RawMessage, bool) {
	for i := len(o) - 1; i >= 0; i-- {
		if o[i].key == k {
			return o[i].val, true
		}
	}
	return nil, false
}

// set replaces the value of k where it stands.
func (o object) set(k string, v json.RawMessage) {
	for i := len(o) - 1; i >= 0; i-- {
		if o[i].key == k {
			o[i].val = v
			return
		}
	}
}

// restore unwraps the named members; it reports whether any was.
func (o object) restore(names ...string) bool {
	changed := false
	for _, name := range names {
		if raw, ok := o.get(name); ok {
			if orig, ok := unwrapJSON(raw); ok {
				o.set(name, orig)
				changed = true
			}
		}
	}
	return changed
}

func (o object) encode() []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := marshal(m.key)
		b.Write(k)
		b.WriteByte(':')
		b.Write(m.val)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// marshal is json.Marshal without HTML escaping: what the client wrote
// goes to the SDK, and back, without growing (< stays <).
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
