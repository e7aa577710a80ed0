package rpc

import (
	"encoding/json"
	"testing"

	"github.com/indusagi/induscode/addons"
)

// FuzzDeclarations feeds answers to initialize through the decoder and
// the checks: never a panic, and what passes has known events and kinds.
func FuzzDeclarations(f *testing.F) {
	for _, s := range []string{
		`{"protocolVersion":"1","handlers":[{"id":"g","event":"tool:before","kind":"gate","tool":"bash","onError":"allow"}]}`,
		`{"protocolVersion":"1","interceptors":[{"id":"i","tool":"read","exit":true}],"commands":[{"name":"c"}],"tools":[{"name":"t","inputSchema":{"type":"object"}}]}`,
		`{"protocolVersion":"2"}`,
		`{"protocolVersion":"1","handlers":[{"id":"","event":"nope","kind":"gate"}]}`,
		`{"protocolVersion":"1","tools":[{"name":"bad name"}]}`,
		`null`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var d Declarations
		if json.Unmarshal(data, &d) != nil || d.check() != nil {
			return
		}
		for _, h := range d.Handlers {
			if _, err := addons.ParseEvent(h.Event); err != nil {
				t.Fatalf("accepted event %q", h.Event)
			}
			if _, err := parseKind(h.Kind); err != nil {
				t.Fatalf("accepted kind %q", h.Kind)
			}
		}
	})
}

// FuzzTransformAnswer feeds payloads a transform may return: decoding
// never panics, and a payload it accepts fits its event.
func FuzzTransformAnswer(f *testing.F) {
	for _, s := range []string{
		`{"tool":"bash","args":{"command":"ls"}}`,
		`{"tool":"bash","args":null}`,
		`{"env":{"A":"1"}}`,
		`{"text":"hi"}`,
		`[]`,
	} {
		for e := range addons.Events() {
			f.Add(uint8(e), []byte(s))
		}
	}
	f.Fuzz(func(t *testing.T, e uint8, data []byte) {
		ev := addons.Events()[int(e)%len(addons.Events())]
		p, err := decodePayload(ev, data)
		if err != nil {
			return
		}
		if !ev.Accepts(p) {
			t.Fatalf("%s decoded into a %T", ev, p)
		}
		if _, err := encodePayload(p); err != nil {
			t.Fatalf("re-encoding %T: %v", p, err)
		}
	})
}

func TestPayloadRoundTrip(t *testing.T) {
	ps := map[addons.Event]addons.Payload{
		addons.ToolBefore:   addons.ToolPayload{Name: "bash", Args: json.RawMessage(`{"command":"ls"}`)},
		addons.SessionStart: addons.LifecyclePayload{Session: "s"},
		addons.ShellEnv:     addons.ShellPayload{Env: map[string]string{"A": "1"}},
		addons.InputSubmit:  addons.InputPayload{Text: "hi"},
		addons.CompactBuild: addons.CompactPayload{Reason: "full"},
		addons.ChatParams:   addons.ChatPayload{Params: json.RawMessage(`{"t":1}`)},
	}
	for e, p := range ps {
		raw, err := encodePayload(p)
		if err != nil {
			t.Fatal(err)
		}
		back, err := decodePayload(e, raw)
		if err != nil {
			t.Fatalf("%s: %v", e, err)
		}
		again, _ := encodePayload(back)
		if string(again) != string(raw) {
			t.Errorf("%s: %s became %s", e, raw, again)
		}
	}
}
