package serve

import (
	"bufio"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/indusagi/induscode/internal/stdioconn"
)

// A stdio client that sends bad lines gets a JSON-RPC error for each,
// naming the problem, and its session goes on: the next call works.
func TestStdioBadLinesGetErrorsAndTheSessionGoesOn(t *testing.T) {
	t.Parallel()
	dir := workspace(t, map[string]string{"notes.txt": "hello\n"})
	cw, cr := pipeServer(t, dir)
	replies := bufio.NewReader(cr)
	send := func(line string) {
		t.Helper()
		if _, err := io.WriteString(cw, line+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	next := func() map[string]any {
		t.Helper()
		type got struct {
			line string
			err  error
		}
		ch := make(chan got, 1)
		go func() { l, err := replies.ReadString('\n'); ch <- got{l, err} }()
		select {
		case g := <-ch:
			if g.err != nil {
				t.Fatalf("reading a reply: %v", g.err)
			}
			var m map[string]any
			if err := json.Unmarshal([]byte(g.line), &m); err != nil {
				t.Fatalf("reply %q is not JSON: %v", g.line, err)
			}
			return m
		case <-time.After(10 * time.Second):
			t.Fatal("no reply within 10s")
		}
		return nil
	}
	errorOf := func(m map[string]any) (float64, string) {
		e, _ := m["error"].(map[string]any)
		code, _ := e["code"].(float64)
		msg, _ := e["message"].(string)
		return code, msg
	}

	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if m := next(); m["result"] == nil {
		t.Fatalf("initialize: %v", m)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	for _, tt := range []struct {
		line string
		code float64
		has  string
	}{
		{`{"jsonrpc":"2.0","id":2,"method":"tools/call",`, -32700, "not a JSON-RPC message"},
		{`hello`, -32700, "not a JSON-RPC message"},
		{`[{"jsonrpc":"2.0","id":3,"method":"ping"}]`, -32600, "batches are not supported"},
		{`{"jsonrpc":"1.0","id":4,"method":"ping"}`, -32600, `"jsonrpc" must be "2.0"`},
		{`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, -32600, "number or a string"},
		{`{"jsonrpc":"2.0","id":5,"method":"ping","x":"` + strings.Repeat("a", stdioconn.DefaultMaxLine) + `"}`, -32600, "16 MiB limit"},
	} {
		send(tt.line)
		m := next()
		code, msg := errorOf(m)
		if code != tt.code || !strings.Contains(msg, tt.has) || m["id"] != nil {
			t.Errorf("%.40s: reply %v, want code %v with %q and a null id", tt.line, m, tt.code, tt.has)
		}
	}

	// A string id and a call after all that.
	send(`{"jsonrpc":"2.0","id":"call-7","method":"tools/call","params":{"name":"read","arguments":{"path":"notes.txt"}}}`)
	m := next()
	if m["id"] != "call-7" || m["result"] == nil || !strings.Contains(string(mustMarshal(t, m["result"])), "hello") {
		t.Errorf("read after the bad lines: %v", m)
	}
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
