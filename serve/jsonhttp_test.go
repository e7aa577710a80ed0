package serve

import (
	"context"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// send makes one request with the headers a Streamable HTTP client sends,
// plus or minus those given ("" removes one; "Host" sets the request's).
func send(t *testing.T, method, url, body string, header map[string]string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		switch {
		case k == "Host":
			req.Host = v
		case v == "":
			req.Header.Del(k)
		default:
			req.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp, string(b)
}

// The JSON-body transport refuses what is not an MCP session's request,
// each time with a status and a message that says what to do, and a
// session it refused nothing of goes on working.
func TestJSONTransportRefusesClearly(t *testing.T) {
	t.Parallel()
	url, _ := startHTTP(t, sessionOptions(workspace(t, nil)), HTTPOptions{})
	raw := startRawHTTP(t, url)
	sid := map[string]string{"Mcp-Session-Id": raw.session}
	with := func(extra map[string]string) map[string]string {
		h := map[string]string{"Mcp-Session-Id": raw.session}
		for k, v := range extra {
			h[k] = v
		}
		return h
	}
	ping := `{"jsonrpc":"2.0","id":5,"method":"ping"}`
	for _, tc := range []struct {
		name, method, body string
		header             map[string]string
		status             int
		says               string
	}{
		{"a call before initialize", http.MethodPost, ping, nil, http.StatusBadRequest, "Mcp-Session-Id"},
		{"an unknown session", http.MethodPost, ping, map[string]string{"Mcp-Session-Id": "no-such-session"}, http.StatusNotFound, "session not found"},
		{"a batch", http.MethodPost, "[" + ping + "]", sid, http.StatusBadRequest, "batch"},
		{"an empty body", http.MethodPost, "", sid, http.StatusBadRequest, "empty"},
		{"not JSON-RPC 2.0", http.MethodPost, `{"id":5,"method":"ping"}`, sid, http.StatusBadRequest, `"jsonrpc" must be "2.0"`},
		{"a body that is not JSON", http.MethodPost, ping, with(map[string]string{"Content-Type": "text/plain"}), http.StatusUnsupportedMediaType, "application/json"},
		{"an Accept without event streams", http.MethodPost, ping, with(map[string]string{"Accept": "application/json"}), http.StatusBadRequest, "text/event-stream"},
		{"an unknown protocol version", http.MethodPost, ping, with(map[string]string{"Mcp-Protocol-Version": "1999-01-01"}), http.StatusBadRequest, "2025-11-25"},
		{"GET without a session", http.MethodGet, "", map[string]string{"Accept": "text/event-stream"}, http.StatusBadRequest, "Mcp-Session-Id"},
		{"GET that takes no event stream", http.MethodGet, "", with(map[string]string{"Accept": "application/json"}), http.StatusBadRequest, "text/event-stream"},
		{"PUT", http.MethodPut, ping, sid, http.StatusMethodNotAllowed, "Method Not Allowed"},
	} {
		resp, body := send(t, tc.method, url, tc.body, tc.header)
		if resp.StatusCode != tc.status || !strings.Contains(body, tc.says) {
			t.Errorf("%s: got %d %q, want %d saying %q", tc.name, resp.StatusCode, body, tc.status, tc.says)
		}
		if tc.method == http.MethodPut && resp.Header.Get("Allow") != "GET, POST, DELETE" {
			t.Errorf("405 without the methods allowed: Allow %q", resp.Header.Get("Allow"))
		}
	}

	// A notification is accepted with 202 and no body.
	resp, body := send(t, http.MethodPost, url, `{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`, sid)
	if resp.StatusCode != http.StatusAccepted || strings.TrimSpace(body) != "" {
		t.Errorf("notification: %d %q, want 202 and no body", resp.StatusCode, body)
	}
	// The session still answers.
	if err := raw.call("todo_read", map[string]any{}); err != nil {
		t.Fatalf("after the refusals: %v", err)
	}
}

// Two calls with one id at once: the second is refused with a JSON-RPC
// error naming the id, the first is answered.
func TestJSONTransportRefusesADuplicateID(t *testing.T) {
	t.Parallel()
	dir := workspace(t, nil)
	url, _ := startHTTP(t, sessionOptions(dir), HTTPOptions{})
	raw := startRawHTTP(t, url)
	sid := map[string]string{"Mcp-Session-Id": raw.session}
	slow := `{"jsonrpc":"2.0","id":"same","method":"tools/call","params":{"name":"bash","arguments":{"command":"touch started; sleep 1; echo done"}}}`
	var wg sync.WaitGroup
	var first string
	wg.Add(1)
	go func() {
		defer wg.Done()
		_, first = send(t, http.MethodPost, url, slow, sid)
	}()
	waitForFile(t, filepath.Join(dir, "started")) // the first call runs
	resp, body := send(t, http.MethodPost, url, slow, sid)
	wg.Wait()
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, "duplicate") || !strings.Contains(body, `"id":"same"`) {
		t.Errorf("second call with the id: %d %q", resp.StatusCode, body)
	}
	if !strings.Contains(first, "done") {
		t.Errorf("first call: %q", first)
	}
}

// A call whose client left keeps its id until the server answers it: a
// new call with that id is refused rather than given the old answer.
func TestJSONTransportKeepsAnAbandonedID(t *testing.T) {
	t.Parallel()
	url, _ := startHTTP(t, sessionOptions(workspace(t, nil)), HTTPOptions{})
	raw := startRawHTTP(t, url)
	call := func(ctx context.Context, command string) (*http.Response, string, error) {
		body := `{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"bash","arguments":{"command":"` + command + `"}}}`
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Session-Id", raw.session)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return nil, "", err
		}
		defer resp.Body.Close()
		var b strings.Builder
		_, err = io.Copy(&b, resp.Body)
		return resp, b.String(), err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if _, _, err := call(ctx, "sleep 1.5; echo FIRST"); err == nil {
		t.Fatal("the abandoned call was answered within 300 ms")
	}
	resp, body, err := call(context.Background(), "echo SECOND")
	if err != nil || resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, "duplicate") {
		t.Fatalf("a call reusing the id of one still running: %v %v %q, want 400 duplicate", err, resp, body)
	}
	// Once the first call ends its id is free again: until then each call
	// with it is refused as a duplicate.
	deadline := time.Now().Add(15 * time.Second)
	for {
		resp, body, err = call(context.Background(), "echo THIRD")
		if err != nil || resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, "duplicate") || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil || resp.StatusCode != http.StatusOK || !strings.Contains(body, "THIRD") || strings.Contains(body, "FIRST") {
		t.Fatalf("a call with the id once the first ended: %v %v %q", err, resp, body)
	}
}

// Only an initialize call opens a session, and only one that succeeds
// keeps it: a failed initialize gets no session id and leaves none behind.
func TestJSONTransportOpensSessionsOnlyOnInitialize(t *testing.T) {
	t.Parallel()
	url, srv := startHTTP(t, sessionOptions(workspace(t, nil)), HTTPOptions{})
	resp, body := send(t, http.MethodPost, url, `{"jsonrpc":"2.0","method":"initialize","params":{}}`, nil)
	if resp.StatusCode != http.StatusBadRequest || resp.Header.Get("Mcp-Session-Id") != "" {
		t.Errorf("initialize as a notification: %d %q, session %q", resp.StatusCode, body, resp.Header.Get("Mcp-Session-Id"))
	}
	resp, body = send(t, http.MethodPost, url, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":5}}`, nil)
	if resp.Header.Get("Mcp-Session-Id") != "" || !strings.Contains(body, `"error"`) {
		t.Errorf("a failed initialize: %d %q, session %q", resp.StatusCode, body, resp.Header.Get("Mcp-Session-Id"))
	}
	for range srv.MCP().Sessions() {
		t.Error("a failed initialize left a session behind")
	}
}

// A request of the stateless generation (its Mcp-Protocol-Version header
// names 2026-07-28) is answered statelessly: server/discover lists both
// generations and opens no session.
func TestHTTPAnswersTheStatelessGeneration(t *testing.T) {
	t.Parallel()
	for _, sse := range []bool{false, true} {
		url, srv := startHTTP(t, sessionOptions(workspace(t, nil)), HTTPOptions{EventStreams: sse})
		resp, body := send(t, http.MethodPost, url, discoverLine(`"d-1"`), map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "server/discover"})
		if resp.StatusCode != http.StatusOK || !strings.Contains(body, `"id":"d-1"`) || !strings.Contains(body, `"supportedVersions":["2026-07-28","2025-11-25","2025-06-18"`) {
			t.Errorf("server/discover (sse %v): %d %q", sse, resp.StatusCode, body)
		}
		if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
			t.Errorf("server/discover opened session %q", id)
		}
		for range srv.MCP().Sessions() {
			t.Errorf("a stateless request left a session behind (sse %v)", sse)
		}
	}
}

// DELETE ends a session: its id is unknown afterwards.
func TestJSONTransportDelete(t *testing.T) {
	t.Parallel()
	url, _ := startHTTP(t, sessionOptions(workspace(t, nil)), HTTPOptions{})
	raw := startRawHTTP(t, url)
	sid := map[string]string{"Mcp-Session-Id": raw.session}
	if resp, body := send(t, http.MethodDelete, url, "", sid); resp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE: %d %q", resp.StatusCode, body)
	}
	if resp, _ := send(t, http.MethodPost, url, `{"jsonrpc":"2.0","id":9,"method":"ping"}`, sid); resp.StatusCode != http.StatusNotFound {
		t.Errorf("a call after DELETE: %d, want 404", resp.StatusCode)
	}
	if resp, _ := send(t, http.MethodDelete, url, "", nil); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("DELETE without a session: %d, want 400", resp.StatusCode)
	}
}

// An idle session ends after the timeout: the timer is real and short,
// and the test waits for the session to be gone rather than for a fixed
// time (calling it would touch it and restart its timer).
func TestJSONTransportIdleSessionEnds(t *testing.T) {
	t.Parallel()
	url, srv := startHTTP(t, sessionOptions(workspace(t, nil)), HTTPOptions{SessionTimeout: 100 * time.Millisecond})
	idle := startRawHTTP(t, url)
	for deadline := time.Now().Add(10 * time.Second); hasSession(srv, idle.session); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("a session idle for ten seconds has not ended with a timeout of 100 ms")
		}
	}
	if err := idle.call("todo_read", map[string]any{}); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("a call after the idle timeout: %v, want 404", err)
	}
}

// hasSession reports whether the server still holds the MCP session id.
func hasSession(srv *Server, id string) bool {
	for ss := range srv.MCP().Sessions() {
		if ss.ID() == id {
			return true
		}
	}
	return false
}

// A session with its event stream open is not idle: when its timer runs
// out it lives on, while one without a stream ends. The transport runs
// with a timeout no test outlives and the test fires the timers itself,
// so the outcome cannot depend on how fast the machine is. A second event
// stream of one session is refused.
func TestJSONTransportOpenStreamIsNotIdle(t *testing.T) {
	t.Parallel()
	srv, err := New(sessionOptions(workspace(t, nil)))
	if err != nil {
		t.Fatal(err)
	}
	transport := newJSONHTTP(srv.mcp, quiet, time.Hour)
	hs := httptest.NewServer(transport)
	t.Cleanup(func() {
		srv.Close()
		hs.Close()
	})
	url := hs.URL
	idle := startRawHTTP(t, url)
	listening := startRawHTTP(t, url)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", listening.session)
	stream, err := http.DefaultClient.Do(req)
	if err != nil || stream.StatusCode != http.StatusOK || stream.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("GET: %v %v", err, stream)
	}
	defer stream.Body.Close()
	if resp, body := send(t, http.MethodGet, url, "", map[string]string{"Accept": "text/event-stream", "Mcp-Session-Id": listening.session}); resp.StatusCode != http.StatusConflict {
		t.Errorf("a second GET: %d %q, want 409", resp.StatusCode, body)
	}

	// The timeout runs out for both: what each session's timer does.
	transport.mu.Lock()
	sessions := slices.Collect(maps.Values(transport.sessions))
	transport.mu.Unlock()
	if len(sessions) != 2 {
		t.Fatalf("%d sessions open, want 2", len(sessions))
	}
	for _, s := range sessions {
		s.expire()
	}
	if err := idle.call("todo_read", map[string]any{}); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("a call after the idle timeout: %v, want 404", err)
	}
	if err := listening.call("todo_read", map[string]any{}); err != nil {
		t.Errorf("the session with its stream open ended: %v", err)
	}
}

// waitForFile waits until path exists, failing t after ten seconds.
func waitForFile(t *testing.T, path string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(path); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not appear within ten seconds", path)
		}
	}
}
