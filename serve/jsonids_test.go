package serve

import (
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// postAsync posts body to the session and delivers the status and body.
func postAsync(url, session, body string) <-chan string {
	ch := make(chan string, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Session-Id", session)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			ch <- "error: " + err.Error()
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		ch <- fmt.Sprintf("%d %s", resp.StatusCode, b)
	}()
	return ch
}

// Over JSON bodies too, ids come back exactly as written, and 1 and 1.5
// are two calls that may run at once.
func TestJSONTransportEchoesIDsExactly(t *testing.T) {
	t.Parallel()
	url, _ := startHTTP(t, sessionOptions(workspace(t, nil)), HTTPOptions{})
	raw := startRawHTTP(t, url)
	slow := postAsync(url, raw.session, `{"jsonrpc":"2.0","id":1.5,"method":"tools/call","params":{"name":"bash","arguments":{"command":"sleep 0.3; echo one-and-a-half"}}}`)
	for id, body := range map[string]string{
		"1":                    `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"bash","arguments":{"command":"echo one"}}}`,
		"18446744073709551616": `{"jsonrpc":"2.0","id":18446744073709551616,"method":"ping"}`,
	} {
		resp, b, err := raw.post(body)
		if err != nil || resp.StatusCode != http.StatusOK || !strings.HasPrefix(string(b), `{"jsonrpc":"2.0","id":`+id+`,`) {
			t.Errorf("call with id %s: %v %v %s", id, err, resp, b)
		}
	}
	if got := <-slow; !strings.HasPrefix(got, `200 {"jsonrpc":"2.0","id":1.5,`) || !strings.Contains(got, "one-and-a-half") {
		t.Errorf("call with id 1.5: %s", got)
	}
}

// A call the client cancelled gets no JSON-RPC answer: its POST ends with
// 202 and no body, and the process it started is killed.
func TestJSONTransportSendsNothingForACancelledCall(t *testing.T) {
	t.Parallel()
	dir := workspace(t, nil)
	url, _ := startHTTP(t, sessionOptions(dir), HTTPOptions{})
	raw := startRawHTTP(t, url)
	pidFile := filepath.Join(dir, "pid")
	call := postAsync(url, raw.session, `{"jsonrpc":"2.0","id":"slow","method":"tools/call","params":{"name":"bash","arguments":{"command":"echo $$ > `+pidFile+`; exec sleep 60"}}}`)
	pid := waitPID(t, pidFile)
	resp, b, err := raw.post(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"slow"}}`)
	if err != nil || resp.StatusCode != http.StatusAccepted {
		t.Fatalf("cancelling: %v %v %s", err, resp, b)
	}
	if got := <-call; got != "202 " {
		t.Errorf("the cancelled call's POST got %q, want 202 with no body", got)
	}
	waitGone(t, pid, 20*time.Second)
	// The id is free again, and the session goes on.
	if resp, b, err := raw.post(`{"jsonrpc":"2.0","id":"slow","method":"ping"}`); err != nil || resp.StatusCode != http.StatusOK || !strings.Contains(string(b), `"id":"slow"`) {
		t.Errorf("a call reusing the cancelled id: %v %v %s", err, resp, b)
	}
}
