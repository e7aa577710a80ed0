package serve

import (
	"bufio"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// A request whose body stalls after its headers does not hold its
// connection: the server gives up on the body after BodyTimeout and
// closes the connection.
func TestStalledBodyDoesNotHoldTheConnection(t *testing.T) {
	t.Parallel()
	for _, mode := range []struct {
		name string
		sse  bool
	}{{"json", false}, {"sse", true}} {
		t.Run(mode.name, func(t *testing.T) {
			t.Parallel()
			url, _ := startHTTP(t, sessionOptions(workspace(t, nil)), HTTPOptions{BodyTimeout: 300 * time.Millisecond, EventStreams: mode.sse})
			addr := strings.TrimSuffix(strings.TrimPrefix(url, "http://"), Endpoint)
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if _, err := conn.Write([]byte("POST " + Endpoint + " HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n{\"jsonrpc\":")); err != nil {
				t.Fatal(err)
			}
			// The server answers the half request, or closes, well before
			// this: without a bound on the body it would wait for ever.
			conn.SetReadDeadline(time.Now().Add(15 * time.Second))
			r := bufio.NewReader(conn)
			for {
				if _, err := r.ReadString('\n'); err != nil {
					if ne, ok := err.(net.Error); ok && ne.Timeout() {
						t.Fatal("the connection was still held 15s after a body that stalled")
					}
					return // closed by the server
				}
			}
		})
	}
}

// Past the session cap a new session is refused with 503 and a message
// that says what to do; ending a session makes room.
func TestSessionCap(t *testing.T) {
	t.Parallel()
	url, srv := startHTTP(t, sessionOptions(workspace(t, nil)), HTTPOptions{MaxSessions: 2})
	first := startRawHTTP(t, url)
	startRawHTTP(t, url)
	status, body := post(t, url, initBody, nil)
	if status != http.StatusServiceUnavailable || !strings.Contains(body, "--max-sessions") {
		t.Fatalf("a third session: %d %q, want 503 naming --max-sessions", status, body)
	}
	resp, _ := send(t, http.MethodDelete, url, "", map[string]string{"Mcp-Session-Id": first.session})
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE: %d", resp.StatusCode)
	}
	deadline := time.Now().Add(10 * time.Second)
	for srv.openSessions() >= 2 {
		if time.Now().After(deadline) {
			t.Fatal("the deleted session is still counted after 10s")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if status, body := post(t, url, initBody, nil); status != http.StatusOK {
		t.Fatalf("a session after one ended: %d %q", status, body)
	}
}

// Two Origin headers are refused, whatever the first says; Host is
// matched ignoring case, as DNS names are, on both transports.
func TestOriginAndHostChecks(t *testing.T) {
	t.Parallel()
	for _, sse := range []bool{false, true} {
		url, _ := startHTTP(t, sessionOptions(workspace(t, nil)), HTTPOptions{EventStreams: sse})
		addr := strings.TrimSuffix(strings.TrimPrefix(url, "http://"), Endpoint)
		_, port, _ := net.SplitHostPort(addr)

		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(initBody))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Add("Origin", "http://"+addr)
		req.Header.Add("Origin", "https://evil.example")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("sse=%v: two Origins, the first our own: %d, want 403", sse, resp.StatusCode)
		}

		for _, host := range []string{"LOCALHOST:" + port, "LocalHost:" + port} {
			status, body := post(t, url, initBody, map[string]string{"Host": host, "Origin": "http://" + strings.ToLower(host)})
			if status != http.StatusOK {
				t.Errorf("sse=%v: Host %s: %d %q, want 200", sse, host, status, body)
			}
		}
	}
}
