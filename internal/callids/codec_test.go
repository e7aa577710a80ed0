package callids

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

var clientIDs = []string{`"listen:0"`, `18446744073709551616`, `1.5`, `-0`, `1e2`, `7`, `"\u00e9"`}

// A listen stream's acknowledgement, its later notifications and its
// result name the stream by the client's id as written, whatever the
// SDK made of it.
func TestSubscriptionIDComesBackAsWritten(t *testing.T) {
	for _, raw := range clientIDs {
		var b Book
		req := &jsonrpc.Request{Method: listenMethod}
		if err := b.Take(req, json.RawMessage(raw)); err != nil {
			t.Fatal(err)
		}
		sdkID, _ := json.Marshal(req.ID.Raw())
		ack := &jsonrpc.Request{Method: ackMethod, Params: json.RawMessage(`{"_meta":{"` + SubscriptionIDKey + `":` + string(sdkID) + `},"notifications":{"toolsListChanged":true}}`)}
		if end := b.Outgoing(ack); end != nil {
			t.Errorf("%s: an acknowledgement before the end of the input ended the stream", raw)
		}
		if want := `"` + SubscriptionIDKey + `":` + raw + `}`; !strings.Contains(string(ack.Params), want) {
			t.Errorf("%s: acknowledgement %s, want it to hold %s", raw, ack.Params, want)
		}
		resp := &jsonrpc.Response{ID: req.ID, Result: json.RawMessage(`{"_meta":{"` + SubscriptionIDKey + `":` + string(sdkID) + `}}`)}
		got, send, ok := b.Answer(resp)
		if !ok || !send {
			t.Fatalf("%s: answer send=%v ok=%v", raw, send, ok)
		}
		data, err := Encode(resp, got)
		if err != nil {
			t.Fatal(err)
		}
		if want := `{"jsonrpc":"2.0","id":` + raw + `,"result":{"_meta":{"` + SubscriptionIDKey + `":` + raw + `}}}`; string(data) != want {
			t.Errorf("listen result %s, want %s", data, want)
		}
	}
}

// At the end of the input an acknowledged listen stream is ended at once,
// one acknowledged later at its acknowledgement, and the SDK's answers to
// both go out.
func TestEndInputEndsListenStreams(t *testing.T) {
	var b Book
	early, late, other := &jsonrpc.Request{Method: listenMethod}, &jsonrpc.Request{Method: listenMethod}, &jsonrpc.Request{Method: "tools/call"}
	for i, r := range []*jsonrpc.Request{early, late, other} {
		if err := b.Take(r, json.RawMessage([]string{`"a"`, `"b"`, `"c"`}[i])); err != nil {
			t.Fatal(err)
		}
	}
	ackOf := func(r *jsonrpc.Request) *jsonrpc.Request {
		id, _ := json.Marshal(r.ID.Raw())
		return &jsonrpc.Request{Method: ackMethod, Params: json.RawMessage(`{"_meta":{"` + SubscriptionIDKey + `":` + string(id) + `}}`)}
	}
	b.Outgoing(ackOf(early))
	ends := b.EndInput()
	if len(ends) != 1 {
		t.Fatalf("EndInput ended %d streams, want the one acknowledged", len(ends))
	}
	names := func(end *jsonrpc.Request, r *jsonrpc.Request) {
		t.Helper()
		var p struct{ RequestID any }
		json.Unmarshal(end.Params, &p)
		if id, _ := jsonrpc.MakeID(p.RequestID); end.Method != cancelledMethod || id != r.ID {
			t.Errorf("the ending %s %s names %v, want %v", end.Method, end.Params, p.RequestID, r.ID.Raw())
		}
	}
	names(ends[0], early)
	end := b.Outgoing(ackOf(late))
	if end == nil {
		t.Fatal("a stream acknowledged after the end of the input was not ended")
	}
	names(end, late)
	if _, send, ok := b.Answer(&jsonrpc.Response{ID: late.ID}); !ok || !send {
		t.Errorf("the ended stream's answer: send=%v ok=%v, want it sent", send, ok)
	}
}

// Through the codec alone (the SDK's event streams): what goes in is
// wrapped, what comes out is the client's JSON again, for call ids,
// cancellations, progress tokens and subscription ids, in single
// messages and batches, members in the order written.
func TestCodecRoundTrip(t *testing.T) {
	for _, raw := range clientIDs {
		in := WrapJSON([]byte(`{"jsonrpc":"2.0","id":` + raw + `,"method":"tools/call","params":{"_meta":{"progressToken":` + raw + `},"name":"x"}}`))
		var m struct {
			ID     any
			Params struct {
				Meta map[string]any `json:"_meta"`
			}
		}
		if err := json.Unmarshal(in, &m); err != nil {
			t.Fatal(err)
		}
		id, ok := m.ID.(string)
		tok, _ := m.Params.Meta["progressToken"].(string)
		if !ok || id != Wrap(json.RawMessage(raw)) || tok != id {
			t.Fatalf("%s went in as %s", raw, in)
		}
		sdk, _ := json.Marshal(id)
		out := RestoreJSON([]byte(`[{"jsonrpc":"2.0","id":` + string(sdk) + `,"result":{"_meta":{"` + SubscriptionIDKey + `":` + string(sdk) + `}}},` +
			`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":` + string(sdk) + `,"progress":1}}]`))
		want := `[{"jsonrpc":"2.0","id":` + raw + `,"result":{"_meta":{"` + SubscriptionIDKey + `":` + raw + `}}},{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":` + raw + `,"progress":1}}]`
		if string(out) != want {
			t.Errorf("came out as %s, want %s", out, want)
		}
		cancel := WrapJSON([]byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + raw + `}}`))
		if !strings.Contains(string(cancel), `"requestId":`+string(sdk)) {
			t.Errorf("cancellation went in as %s", cancel)
		}
	}
	// A response to the server's own call keeps its id; what does not
	// parse is left for the SDK to refuse.
	for _, body := range []string{`{"jsonrpc":"2.0","id":3,"result":{}}`, `{not json`, `{"jsonrpc":"2.0","id":{},"method":"x"}`} {
		if got := string(WrapJSON([]byte(body))); got != body {
			t.Errorf("WrapJSON(%s) = %s", body, got)
		}
	}
	// A client's string that looks wrapped is wrapped again, so it comes
	// back as the client wrote it.
	tricky, _ := json.Marshal(Wrap(json.RawMessage(`1`)))
	in := WrapJSON([]byte(`{"jsonrpc":"2.0","id":` + string(tricky) + `,"method":"ping"}`))
	var m struct{ ID string }
	json.Unmarshal(in, &m)
	sdk, _ := json.Marshal(m.ID)
	if out := RestoreJSON([]byte(`{"jsonrpc":"2.0","id":` + string(sdk) + `,"result":{}}`)); !strings.Contains(string(out), `"id":`+string(tricky)) {
		t.Errorf("a wrapped-looking id came back as %s", out)
	}
}
