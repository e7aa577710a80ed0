package callids

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

func take(t *testing.T, b *Book, raw string) *jsonrpc.Request {
	t.Helper()
	req := &jsonrpc.Request{Method: "tools/call"}
	if err := b.Take(req, json.RawMessage(raw)); err != nil {
		t.Fatalf("Take(%s): %v", raw, err)
	}
	return req
}

// Each call's answer carries the client's id as written; ids the SDK
// would read as one (1 and 1.5, big numbers) are distinct calls.
func TestAnswersCarryTheClientsID(t *testing.T) {
	var b Book
	raws := []string{`1`, `1.5`, `18446744073709551616`, `"1"`, `-0`, `1e2`}
	reqs := make([]*jsonrpc.Request, len(raws))
	for i, raw := range raws {
		reqs[i] = take(t, &b, raw)
	}
	if b.Open() != len(raws) {
		t.Fatalf("Open = %d, want %d", b.Open(), len(raws))
	}
	for i, raw := range raws {
		resp := &jsonrpc.Response{ID: reqs[i].ID, Result: json.RawMessage(`{"ok":true}`)}
		got, send, ok := b.Answer(resp)
		if !ok || !send || string(got) != raw {
			t.Errorf("answer to %s: %s send=%v ok=%v", raw, got, send, ok)
		}
		data, err := Encode(resp, got)
		if err != nil {
			t.Fatal(err)
		}
		want := `{"jsonrpc":"2.0","id":` + raw + `,"result":{"ok":true}}`
		if string(data) != want {
			t.Errorf("Encode = %s, want %s", data, want)
		}
	}
	select {
	case <-b.Idle():
	default:
		t.Error("the book is not idle after every call was answered")
	}
}

func TestDuplicatesAndBadIDs(t *testing.T) {
	var b Book
	first := take(t, &b, `"a"`)
	if err := b.Take(&jsonrpc.Request{Method: "ping"}, json.RawMessage(`"\u0061"`)); !errors.Is(err, ErrDuplicate) {
		t.Errorf("the same string id, escaped: %v, want ErrDuplicate", err)
	}
	for _, raw := range []string{`{"a":1}`, `[1]`, `true`, ``, `"unterminated`} {
		if err := b.Take(&jsonrpc.Request{Method: "ping"}, json.RawMessage(raw)); err == nil {
			t.Errorf("Take(%q) took a bad id", raw)
		}
	}
	b.Answer(&jsonrpc.Response{ID: first.ID})
	take(t, &b, `"a"`) // free again once answered
}

// A cancelled call's answer is not sent, and the notification reaches the
// SDK naming the book's id; a cancellation of no open call is dropped.
func TestCancel(t *testing.T) {
	var b Book
	req := take(t, &b, `"slow"`)
	note := &jsonrpc.Request{Method: "notifications/cancelled", Params: json.RawMessage(`{"requestId":"slow","reason":"user"}`)}
	if !b.Cancel(note) {
		t.Fatal("the cancellation of an open call was dropped")
	}
	var p struct {
		RequestID any    `json:"requestId"`
		Reason    string `json:"reason"`
	}
	if err := json.Unmarshal(note.Params, &p); err != nil {
		t.Fatal(err)
	}
	if id, _ := jsonrpc.MakeID(p.RequestID); id != req.ID || p.Reason != "user" {
		t.Errorf("rewritten params %s name %v, want the book's id %v", note.Params, p.RequestID, req.ID.Raw())
	}
	if _, send, ok := b.Answer(&jsonrpc.Response{ID: req.ID, Result: json.RawMessage(`{}`)}); !ok || send {
		t.Errorf("answer of a cancelled call: send=%v ok=%v, want not sent", send, ok)
	}
	for _, params := range []string{`{"requestId":"slow"}`, `{"requestId":1}`, `{}`, `not json`} {
		if b.Cancel(&jsonrpc.Request{Method: "notifications/cancelled", Params: json.RawMessage(params)}) {
			t.Errorf("a cancellation of no open call (%s) was delivered", params)
		}
	}
	if !b.Cancel(&jsonrpc.Request{Method: "notifications/progress"}) {
		t.Error("another notification was dropped")
	}
}

func TestEncodeError(t *testing.T) {
	data, err := Encode(&jsonrpc.Response{Error: &jsonrpc.Error{Code: -32600, Message: "<bad>"}}, json.RawMessage(`7`))
	if err != nil || string(data) != `{"jsonrpc":"2.0","id":7,"error":{"code":-32600,"message":"<bad>"}}` {
		t.Errorf("Encode = %s, %v", data, err)
	}
	data, _ = Encode(&jsonrpc.Response{Result: json.RawMessage("{\n\"a\": 1\n}")}, json.RawMessage(`7`))
	if bytes.IndexByte(data, '\n') >= 0 || !json.Valid(data) {
		t.Errorf("a result with line breaks: %q", data)
	}
}

// Any id a client may send either is refused or comes back byte for byte
// inside a valid message.
func FuzzIDRoundTrip(f *testing.F) {
	for _, s := range []string{`1`, `1.5`, `"x"`, `-0`, `1e999`, `"\u00e9"`, `{}`, `null`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		var b Book
		req := &jsonrpc.Request{Method: "ping"}
		if !json.Valid([]byte(raw)) || b.Take(req, json.RawMessage(raw)) != nil {
			return
		}
		resp := &jsonrpc.Response{ID: req.ID, Result: json.RawMessage(`{}`)}
		got, _, ok := b.Answer(resp)
		if !ok {
			t.Fatal("the answer matched no call")
		}
		data, err := Encode(resp, got)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatalf("Encode gave invalid JSON %q: %v", data, err)
		}
		if !bytes.Equal(m["id"], bytes.TrimSpace([]byte(raw))) {
			t.Fatalf("id %q came back as %q", raw, m["id"])
		}
	})
}

// The answer of a cancelled call is dropped at both steps of a transport
// that stores it before it streams it; an answer that was not cancelled,
// and the answer of a new call reusing the id, go out.
func TestCancelsDropOnlyCancelledAnswers(t *testing.T) {
	var c Cancels
	id := json.RawMessage(`"a"`)
	if c.Cancel(id) {
		t.Error("a cancellation of a call not in flight was booked")
	}
	c.Take(id)
	c.Take(json.RawMessage(`1`))
	if !c.Cancel(json.RawMessage(` "a"`)) {
		t.Fatal("the cancellation of a call in flight was not booked")
	}
	if !c.Answer(id, false) || !c.Answer(id, true) {
		t.Error("the cancelled call's answer went out")
	}
	if c.Answer(json.RawMessage(`1`), false) || c.Answer(json.RawMessage(`1`), true) {
		t.Error("an answer that was not cancelled was dropped")
	}
	c.Take(id)
	if c.Answer(id, false) {
		t.Error("a new call reusing a cancelled id lost its answer")
	}
}
