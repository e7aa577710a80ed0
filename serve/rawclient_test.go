package serve

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"testing"
)

// The benchmarks measure servers, so their client should cost as little
// as possible and the same for both sides: these speak MCP with plain
// JSON lines and HTTP requests, with no SDK machinery in between.

const rawInit = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`

// rawStdio is an MCP client over a child's stdin and stdout.
type rawStdio struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
	id  int
}

func startRawStdio(t testing.TB, cmd *exec.Cmd) *rawStdio {
	t.Helper()
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &rawStdio{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}
	t.Cleanup(func() {
		in.Close()
		cmd.Process.Kill()
		cmd.Wait()
	})
	if _, err := c.roundTrip(rawInit, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"); err != nil {
		t.Fatal(err)
	}
	return c
}

// roundTrip sends one request and reads lines until the response with id.
func (c *rawStdio) roundTrip(req string, id int) ([]byte, error) {
	if _, err := io.WriteString(c.in, req+"\n"); err != nil {
		return nil, err
	}
	want := []byte(fmt.Sprintf(`"id":%d`, id))
	for {
		line, err := c.out.ReadBytes('\n')
		if err != nil {
			return nil, err
		}
		if bytes.Contains(line, want) && (bytes.Contains(line, []byte(`"result"`)) || bytes.Contains(line, []byte(`"error"`))) {
			return line, nil
		}
	}
}

// call runs tool with args and fails on an error or isError result.
func (c *rawStdio) call(tool string, args any) error {
	c.id++
	a, _ := json.Marshal(args)
	line, err := c.roundTrip(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, c.id, tool, a), c.id)
	if err != nil {
		return err
	}
	return checkResult(line)
}

func checkResult(b []byte) error {
	if bytes.Contains(b, []byte(`"error":{`)) || bytes.Contains(b, []byte(`"isError":true`)) {
		return fmt.Errorf("call failed: %.300s", b)
	}
	return nil
}

// rawHTTP is an MCP client of one Streamable HTTP session.
type rawHTTP struct {
	url, session string
	token        string // sent as a bearer token when set
	hc           *http.Client
	id           int
}

func startRawHTTP(t testing.TB, url string) *rawHTTP { t.Helper(); return startRawHTTPAuth(t, url, "") }

// startRawHTTPAuth is startRawHTTP of a server that wants token.
func startRawHTTPAuth(t testing.TB, url, token string) *rawHTTP {
	t.Helper()
	c := &rawHTTP{url: url, token: token, hc: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}}
	resp, body, err := c.post(rawInit)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("initialize: %v %v %s", err, resp, body)
	}
	c.session = resp.Header.Get("Mcp-Session-Id")
	if resp, body, err := c.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`); err != nil || resp.StatusCode/100 != 2 {
		t.Fatalf("initialized: %v %v %s", err, resp, body)
	}
	t.Cleanup(func() {
		req, _ := http.NewRequest(http.MethodDelete, c.url, nil)
		req.Header.Set("Mcp-Session-Id", c.session)
		if c.token != "" {
			req.Header.Set("Authorization", "Bearer "+c.token)
		}
		if resp, err := c.hc.Do(req); err == nil {
			resp.Body.Close()
		}
		c.hc.CloseIdleConnections()
	})
	return c
}

func (c *rawHTTP) post(body string) (*http.Response, []byte, error) {
	req, err := http.NewRequest(http.MethodPost, c.url, strings.NewReader(body))
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	if c.session != "" {
		req.Header.Set("Mcp-Session-Id", c.session)
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp, b, err
}

func (c *rawHTTP) call(tool string, args any) error {
	c.id++
	a, _ := json.Marshal(args)
	resp, b, err := c.post(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, c.id, tool, a))
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK || !bytes.Contains(b, []byte(`"result"`)) {
		return fmt.Errorf("status %d: %.300s", resp.StatusCode, b)
	}
	return checkResult(b)
}
