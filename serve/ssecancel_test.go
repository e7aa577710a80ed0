package serve

import (
	"context"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// Over event streams (--sse) too, a call the client cancelled gets no
// answer: its stream ends without a message for it, a client resuming the
// stream is not given one either, the process it started is killed, and
// its id may be used again.
func TestEventStreamsSendNothingForACancelledCall(t *testing.T) {
	t.Parallel()
	dir := workspace(t, nil)
	url, _ := startHTTP(t, sessionOptions(dir), HTTPOptions{EventStreams: true})
	raw := startRawHTTP(t, url)
	pidFile := filepath.Join(dir, "pid")
	call := make(chan string, 1)
	go func() {
		resp, b, err := raw.post(`{"jsonrpc":"2.0","id":"slow","method":"tools/call","params":{"name":"bash","arguments":{"command":"echo $$ > ` + pidFile + `; exec sleep 60"}}}`)
		if err != nil {
			call <- err.Error()
			return
		}
		call <- resp.Status + "\n" + string(b)
	}()
	pid := waitPID(t, pidFile)
	resp, b, err := raw.post(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"slow","reason":"the user pressed Esc"}}`)
	if err != nil || resp.StatusCode != http.StatusAccepted {
		t.Fatalf("cancelling: %v %v %s", err, resp, b)
	}
	// The call's stream ends once the server is done with the call.
	got := <-call
	if !strings.HasPrefix(got, "200 ") || strings.Contains(got, `"id":"slow"`) {
		t.Errorf("the cancelled call's stream carried an answer:\n%s", got)
	}
	waitGone(t, pid, 20*time.Second)
	// The stream began with a priming event; resuming after it replays
	// nothing.
	if m := regexp.MustCompile(`(?m)^id: (\S+)$`).FindStringSubmatch(got); m == nil {
		t.Errorf("the call's stream had no priming event to resume from:\n%s", got)
	} else if replay := resume(t, url, raw.session, m[1]); strings.Contains(replay, `"id":"slow"`) {
		t.Errorf("resuming the cancelled call's stream replayed its answer:\n%s", replay)
	}
	if got := <-postAsync(url, raw.session, `{"jsonrpc":"2.0","id":"slow","method":"ping"}`); !strings.HasPrefix(got, "200 ") || !strings.Contains(got, `"id":"slow","result":{}`) {
		t.Errorf("a call reusing the cancelled id:\n%s", got)
	}
	// A call that was not cancelled is answered as before.
	if got := <-postAsync(url, raw.session, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"bash","arguments":{"command":"echo seven"}}}`); !strings.Contains(got, `"id":7,"result"`) || !strings.Contains(got, "seven") {
		t.Errorf("a later call:\n%s", got)
	}
}

// resume reads what a GET with Last-Event-ID after event gets.
func resume(t *testing.T, url, session, event string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a hang, not a pace
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", session)
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	req.Header.Set("Last-Event-ID", event)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("resuming: %v", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("resuming: %v", err)
	}
	return resp.Status + "\n" + string(b)
}
