package serve

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const initLine = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// runPiped runs `indusr serve` with stdin from r (a file, or a pipe that
// is closed once written) and returns its stdout once it exits.
func runPiped(t *testing.T, dir string, stdin io.Reader) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, indusr, "--cwd", dir, "--no-mcp", "serve")
	cmd.Stdin = stdin
	cmd.Stderr = &testWriter{t: t}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("indusr serve: %v\n%s", err, out)
	}
	return strings.Split(strings.TrimSpace(string(out)), "\n")
}

// replyTo returns the reply line with this raw id, or "".
func replyTo(lines []string, rawID string) string {
	for _, l := range lines {
		if strings.Contains(l, `"id":`+rawID+`,`) && (strings.Contains(l, `"result"`) || strings.Contains(l, `"error"`)) {
			return l
		}
	}
	return ""
}

// A client that writes its requests and closes its end gets every reply:
// the server finishes the calls in flight at the end of its input,
// answers them, then exits.
func TestPipedInputGetsEveryReply(t *testing.T) {
	t.Parallel()
	dir := workspace(t, map[string]string{"notes.txt": "hello\n"})

	t.Run("one initialize through a pipe", func(t *testing.T) {
		t.Parallel()
		lines := runPiped(t, dir, strings.NewReader(initLine+"\n"))
		if l := replyTo(lines, "1"); !strings.Contains(l, `"protocolVersion"`) {
			t.Fatalf("no initialize reply; stdout: %q", lines)
		}
	})

	t.Run("a session from a file", func(t *testing.T) {
		t.Parallel()
		script := strings.Join([]string{
			initLine,
			`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
			`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
			`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read","arguments":{"path":"notes.txt"}}}`,
			`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"bash","arguments":{"command":"sleep 0.5; echo slow-done"}}}`,
		}, "\n") + "\n"
		p := filepath.Join(t.TempDir(), "requests.jsonl")
		if err := os.WriteFile(p, []byte(script), 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		lines := runPiped(t, dir, f)
		for id, want := range map[string]string{"1": "protocolVersion", "2": `"name":"read"`, "3": "hello", "4": "slow-done"} {
			if l := replyTo(lines, id); !strings.Contains(l, want) {
				t.Errorf("reply to %s: %q, want it to hold %q", id, l, want)
			}
		}
		if t.Failed() {
			t.Logf("stdout: %q", lines)
		}
	})
}

// Ids come back exactly as the client wrote them, however the SDK would
// read them: a number beyond int64, a fraction, and 1 beside 1.5 are
// three calls, each answered under its own id.
func TestStdioEchoesIDsExactly(t *testing.T) {
	t.Parallel()
	dir := workspace(t, nil)
	script := strings.Join([]string{
		strings.Replace(initLine, `"id":1`, `"id":18446744073709551616`, 1),
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":1.5,"method":"tools/call","params":{"name":"bash","arguments":{"command":"sleep 0.5; echo one-and-a-half"}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"bash","arguments":{"command":"echo one"}}}`,
		`{"jsonrpc":"2.0","id":"1","method":"ping"}`,
		`{"jsonrpc":"2.0","id":-0.0,"method":"ping"}`,
	}, "\n") + "\n"
	lines := runPiped(t, dir, strings.NewReader(script))
	for id, want := range map[string]string{
		"18446744073709551616": "protocolVersion",
		"1.5":                  "one-and-a-half",
		"1":                    `"text":"one\n`,
		`"1"`:                  `"result":{}`,
		"-0.0":                 `"result":{}`,
	} {
		if l := replyTo(lines, id); !strings.Contains(l, want) {
			t.Errorf("reply to id %s: %q, want it to hold %q", id, l, want)
		}
	}
	if t.Failed() {
		t.Logf("stdout: %q", lines)
	}
}

// After notifications/cancelled the server sends nothing for the call,
// and the process the call started is killed.
func TestStdioSendsNothingForACancelledCall(t *testing.T) {
	t.Parallel()
	dir := workspace(t, nil)
	pidFile := filepath.Join(dir, "pid")
	cmd := exec.Command(indusr, "--cwd", dir, "--no-mcp", "serve")
	cmd.Stderr = &testWriter{t: t}
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
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	replies := lines(bufio.NewScanner(out))
	send := func(s string) {
		t.Helper()
		if _, err := io.WriteString(in, s+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	next := func() string {
		t.Helper()
		select {
		case l, ok := <-replies:
			if !ok {
				t.Fatal("the server closed its stdout")
			}
			return l
		case <-time.After(30 * time.Second):
			t.Fatal("no reply within 30s")
		}
		return ""
	}
	send(initLine)
	next()
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":"slow","method":"tools/call","params":{"name":"bash","arguments":{"command":"echo $$ > ` + pidFile + `; exec sleep 60"}}}`)
	pid := waitPID(t, pidFile)
	send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"slow","reason":"user"}}`)
	waitGone(t, pid, 20*time.Second)
	// Whatever was to be sent for the cancelled call has been sent once
	// its process is gone and the server answers a later request; closing
	// stdin then ends the server, so every line it wrote is read.
	send(`{"jsonrpc":"2.0","id":"after","method":"ping"}`)
	in.Close()
	var got []string
	for l := range replies {
		got = append(got, l)
	}
	if replyTo(got, `"after"`) == "" {
		t.Fatalf("no reply to the ping after the cancellation: %q", got)
	}
	if l := replyTo(got, `"slow"`); l != "" {
		t.Fatalf("the cancelled call was answered: %s", l)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("indusr serve: %v", err)
	}
}
