package streamhost

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer safe for the wire's writers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) lines(t *testing.T) []map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(s.b.String()), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("not a JSON line: %q", l)
		}
		out = append(out, m)
	}
	return out
}

// waitRequest returns the id of the n-th control request written.
func waitRequest(t *testing.T, out *syncBuffer, n int) string {
	t.Helper()
	for {
		var reqs []map[string]any
		for _, l := range out.lines(t) {
			if l["type"] == "control_request" {
				reqs = append(reqs, l)
			}
		}
		if len(reqs) > n {
			return reqs[n]["request_id"].(string)
		}
		// The request is written by another goroutine just started.
		time.Sleep(time.Millisecond)
	}
}

// The app's answer reaches the request with its id; an error answer is an
// error naming the request; a cancelled request tells the app and a late
// answer to it is dropped; the end of the input fails the pending
// request and every later one.
func TestWireRequests(t *testing.T) {
	t.Parallel()
	var out syncBuffer
	w := newWire(&out)

	type got struct {
		resp json.RawMessage
		err  error
	}
	ask := func(ctx context.Context) chan got {
		ch := make(chan got, 1)
		go func() {
			r, err := w.request(ctx, map[string]any{"subtype": "can_use_tool"})
			ch <- got{r, err}
		}()
		return ch
	}

	ch := ask(context.Background())
	id := waitRequest(t, &out, 0)
	w.deliver(ctrlResponse{Subtype: "success", RequestID: id, Response: json.RawMessage(`{"behavior":"allow"}`)})
	if g := <-ch; g.err != nil || string(g.resp) != `{"behavior":"allow"}` {
		t.Errorf("answered request = %s, %v", g.resp, g.err)
	}

	ch = ask(context.Background())
	id = waitRequest(t, &out, 1)
	w.deliver(ctrlResponse{Subtype: "error", RequestID: id, Error: "canUseTool callback is not provided."})
	if g := <-ch; g.err == nil || !strings.Contains(g.err.Error(), "can_use_tool") || !strings.Contains(g.err.Error(), "not provided") {
		t.Errorf("error answer = %v", g.err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	ch = ask(ctx)
	id = waitRequest(t, &out, 2)
	cancel()
	if g := <-ch; !errors.Is(g.err, context.Canceled) {
		t.Errorf("cancelled request = %v", g.err)
	}
	w.deliver(ctrlResponse{Subtype: "success", RequestID: id}) // late: dropped
	var cancelled bool
	for _, l := range out.lines(t) {
		if l["type"] == "control_cancel_request" && l["request_id"] == id {
			cancelled = true
		}
	}
	if !cancelled {
		t.Errorf("the app was not told of the cancellation: %v", out.lines(t))
	}

	ch = ask(context.Background())
	waitRequest(t, &out, 3)
	w.inputEnded()
	if g := <-ch; !errors.Is(g.err, errInputClosed) {
		t.Errorf("pending request at the end of the input = %v", g.err)
	}
	if _, err := w.request(context.Background(), map[string]any{"subtype": "hook_callback"}); !errors.Is(err, errInputClosed) {
		t.Errorf("request after the end of the input = %v", err)
	}
}

// The reader hands answers to the wire and everything else to the host,
// passes over blank lines and says which line was not JSON.
func TestWireRead(t *testing.T) {
	t.Parallel()
	w := newWire(io.Discard)
	in := make(chan inbound, 10)
	var stderr bytes.Buffer
	input := "\n" + `{"type":"user","message":{"role":"user","content":"hi"}}` + "\n" +
		"{broken\n" + `{"type":"control_response","response":{"subtype":"success","request_id":"x"}}` + "\n" +
		`{"type":"control_request","request_id":"r1","request":{"subtype":"interrupt"}}`
	w.read(strings.NewReader(input), in, &stderr)
	var types []string
	for m := range in {
		types = append(types, m.Type)
	}
	if strings.Join(types, ",") != "user,control_request" {
		t.Errorf("the host got %v", types)
	}
	if !strings.Contains(stderr.String(), "not JSON") {
		t.Errorf("stderr = %q", stderr.String())
	}
}

// The printer's output reaches stdout in whole lines, whatever its
// writes; a result line gets the structured answer, other lines nothing.
func TestLineWriterAndResultPatch(t *testing.T) {
	t.Parallel()
	var out syncBuffer
	h := &host{}
	h.structured, _ = newStructuredTool(`{"type":"array"}`)
	lw := &lineWriter{w: newWire(&out), patch: h.patchResult}
	lw.Write([]byte(`{"type":"assistant",`))
	if len(out.lines(t)) != 0 {
		t.Fatalf("half a line was written")
	}
	h.structured.Run(context.Background(), json.RawMessage(`{"value":[1,2]}`), nil)
	lw.Write([]byte(`"x":1}` + "\n" + `{"type":"result","is_error":false,"result":"ok"}` + "\n"))
	lines := out.lines(t)
	if len(lines) != 2 {
		t.Fatalf("lines = %v", lines)
	}
	if _, ok := lines[0]["structured_output"]; ok {
		t.Errorf("an assistant line got the answer: %v", lines[0])
	}
	patched := h.patchResult([]byte(`{"type":"result","is_error":false,"result":"ok"}` + "\n"))
	if !bytes.HasPrefix(patched, []byte(`{"type":"result",`)) || !bytes.Contains(patched, []byte(`"structured_output":[1,2]}`)) {
		t.Errorf("structured result = %s", patched)
	}
}

// User messages: plain text and text blocks run; an image, another role
// or no text is refused by name.
func TestDecodeUser(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ msg, prompt, err string }{
		{`{"role":"user","content":"hello"}`, "hello", ""},
		{`{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}`, "a\n\nb", ""},
		{`{"role":"user","content":[{"type":"image","source":{}}]}`, "", `"image" block`},
		{`{"role":"assistant","content":"x"}`, "", "role"},
		{`{"role":"user","content":"  "}`, "", "no text"},
		{``, "", "needs"},
	} {
		u, err := decodeUser(inbound{Type: "user", Message: json.RawMessage(c.msg)})
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: error %v, want one with %q", c.msg, err, c.err)
			}
			continue
		}
		if err != nil || u.prompt != c.prompt || u.uuid == "" {
			t.Errorf("%s: %+v, %v", c.msg, u, err)
		}
	}
}
