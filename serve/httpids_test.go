package serve

import (
	"bufio"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"
)

// rawIDs are ids of every JSON type a client may write: the SDK reads
// none of the numbers exactly, and 1.5 beside 1 would collide.
var rawIDs = []string{`1`, `1.5`, `18446744073709551616`, `"s-1"`}

// Over event streams (--sse) too, each call's answer carries its id as
// written, and 1 and 1.5 are two calls in flight at once.
func TestSSEEchoesIDsExactly(t *testing.T) {
	t.Parallel()
	url, _ := startHTTP(t, sessionOptions(workspace(t, nil)), HTTPOptions{EventStreams: true})
	raw := startRawHTTP(t, url)
	slow := postAsync(url, raw.session, `{"jsonrpc":"2.0","id":1.5,"method":"tools/call","params":{"name":"bash","arguments":{"command":"sleep 0.3; echo one-and-a-half"}}}`)
	for _, id := range rawIDs {
		if id == `1.5` {
			continue
		}
		resp, b, err := raw.post(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"bash","arguments":{"command":"echo call-` + strings.Trim(id, `"`) + `"}}}`)
		if err != nil || resp.StatusCode != http.StatusOK || !strings.Contains(string(b), `"id":`+id+`,`) || !strings.Contains(string(b), "call-"+strings.Trim(id, `"`)) {
			t.Errorf("call with id %s: %v %v %s", id, err, resp, b)
		}
	}
	if got := <-slow; !strings.Contains(got, `"id":1.5,`) || !strings.Contains(got, "one-and-a-half") {
		t.Errorf("call with id 1.5: %s", got)
	}
}

// A progress token comes back in notifications/progress as written, over
// JSON bodies (on the session's GET stream) and over event streams (on
// the call's own stream).
func TestHTTPProgressTokensComeBackAsWritten(t *testing.T) {
	t.Parallel()
	for _, mode := range []struct {
		name string
		opts HTTPOptions
	}{{"json", HTTPOptions{}}, {"sse", HTTPOptions{EventStreams: true}}} {
		t.Run(mode.name, func(t *testing.T) {
			t.Parallel()
			url, _ := startHTTP(t, sessionOptions(workspace(t, nil)), mode.opts)
			raw := startRawHTTP(t, url)
			var stream <-chan string
			if !mode.opts.EventStreams {
				stream = getStream(t, url, raw.session)
			}
			for i, tok := range []string{`18446744073709551616`, `1.5`, `"tok"`} {
				id := []string{`10`, `11`, `12`}[i]
				resp, b, err := raw.post(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"_meta":{"progressToken":` + tok + `},"name":"bash","arguments":{"command":"sleep 1.4; echo done"}}}`)
				if err != nil || resp.StatusCode != http.StatusOK || !strings.Contains(string(b), `"id":`+id+`,`) {
					t.Fatalf("call %s: %v %v %s", id, err, resp, b)
				}
				want := `"progressToken":` + tok + `,`
				if mode.opts.EventStreams {
					if !strings.Contains(string(b), want) {
						t.Errorf("the call's stream has no progress with the token %s: %s", tok, b)
					}
					continue
				}
				if !waitFor(stream, want, 20*time.Second) {
					t.Errorf("the GET stream had no progress with the token %s", tok)
				}
			}
		})
	}
}

// getStream opens a session's GET event stream and delivers its data
// lines until the test ends.
func getStream(t *testing.T, url, session string) <-chan string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", session)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		cancel()
		t.Fatalf("GET stream: %v %v", err, resp)
	}
	ch := make(chan string, 64)
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				select {
				case ch <- data:
				default:
				}
			}
		}
	}()
	t.Cleanup(func() {
		cancel()
		resp.Body.Close()
		<-done
	})
	return ch
}

// waitFor reports whether a line holding want arrives within d.
func waitFor(lines <-chan string, want string, d time.Duration) bool {
	deadline := time.After(d)
	for {
		select {
		case l := <-lines:
			if strings.Contains(l, want) {
				return true
			}
		case <-deadline:
			return false
		}
	}
}

// A stateless client's listen stream over HTTP (the POST's own event
// stream) is acknowledged under the listen request's id as written, and
// its calls' ids come back as written too, over JSON bodies and --sse.
func TestHTTPStatelessIDsComeBackAsWritten(t *testing.T) {
	t.Parallel()
	for _, sse := range []bool{false, true} {
		url, _ := startHTTP(t, sessionOptions(workspace(t, nil)), HTTPOptions{EventStreams: sse})
		for _, id := range append(rawIDs, `"listen:0"`) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(listenLine(id)))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
			req.Header.Set("Mcp-Method", "subscriptions/listen")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				cancel()
				t.Fatal(err)
			}
			sc := bufio.NewScanner(resp.Body)
			var ack string
			for ack == "" && sc.Scan() {
				if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok && strings.Contains(data, "subscriptions/acknowledged") {
					ack = data
				}
			}
			cancel()
			resp.Body.Close()
			if got := subscriptionID(t, ack); got != id {
				t.Errorf("sse %v: the listen stream %s was acknowledged as %s: %q", sse, id, got, ack)
			}
			resp, body := send(t, http.MethodPost, url, `{"jsonrpc":"2.0","id":`+id+`,"method":"tools/list","params":{`+newMeta+`}}`,
				map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list"})
			if resp.StatusCode != http.StatusOK || !strings.Contains(body, `"id":`+id+`,`) || !strings.Contains(body, `"name":"read"`) {
				t.Errorf("sse %v: tools/list with id %s: %d %.300s", sse, id, resp.StatusCode, body)
			}
		}
		// A progress token comes back on the call's own stream as written.
		meta := strings.Replace(newMeta, `"_meta":{`, `"_meta":{"progressToken":18446744073709551616,`, 1)
		resp, body := send(t, http.MethodPost, url, `{"jsonrpc":"2.0","id":1.5,"method":"tools/call","params":{`+meta+`,"name":"bash","arguments":{"command":"sleep 1.4; echo done"}}}`,
			map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "bash"})
		if resp.StatusCode != http.StatusOK || !strings.Contains(body, `"progressToken":18446744073709551616,`) || !strings.Contains(body, `"id":1.5,`) {
			t.Errorf("sse %v: a stateless call with a progress token: %d %.1500s", sse, resp.StatusCode, body)
		}
	}
}
