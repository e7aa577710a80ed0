package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sourcegraph/jsonrpc2"
)

// standInArg makes the test binary a stand-in language server (TestMain),
// for the failures no real server gives on demand.
const standInArg = "lsp-stand-in"

// standInServer returns the Server that runs the stand-in in mode.
func standInServer(mode string) Server {
	return Server{Command: os.Args[0], Args: []string{standInArg, mode}, Filetypes: []string{".go"}}
}

// standIn speaks LSP on stdin and stdout. In mode "flood" it answers each
// change with floodNotes log messages before the file's diagnostics; in
// mode "babble" it sends log messages without end and never publishes; in
// mode "once" it publishes the first change's diagnostics and dies when
// the test creates onceStop.
func standIn(mode string) int {
	ctx := context.Background()
	done := make(chan struct{})
	var conn *jsonrpc2.Conn
	handle := func(ctx context.Context, c *jsonrpc2.Conn, req *jsonrpc2.Request) (any, error) {
		switch req.Method {
		case "initialize":
			return map[string]any{"capabilities": map[string]any{"textDocumentSync": 1}}, nil
		case "textDocument/didOpen", "textDocument/didChange":
			var p struct {
				TextDocument struct {
					URI     string `json:"uri"`
					Version int    `json:"version"`
				} `json:"textDocument"`
			}
			_ = json.Unmarshal(*req.Params, &p)
			go noise(ctx, c, mode, p.TextDocument.URI, p.TextDocument.Version)
		case "shutdown":
			return nil, nil
		case "exit":
			close(done)
		}
		return nil, nil
	}
	conn = jsonrpc2.NewConn(ctx, jsonrpc2.NewBufferedStream(stdinout{}, jsonrpc2.VSCodeObjectCodec{}), jsonrpc2.HandlerWithError(handle))
	select {
	case <-done:
	case <-conn.DisconnectNotify():
	}
	return 0
}

// onceStop is the file that tells a stand-in in mode "once" to die.
const onceStop = "stand-in.stop"

// floodNotes is how many log messages the flood sends before each publish.
const floodNotes = 5000

func noise(ctx context.Context, c *jsonrpc2.Conn, mode, uri string, version int) {
	for i := 0; mode == "babble" || mode == "flood" && i < floodNotes; i++ {
		note := map[string]any{"type": 4, "message": fmt.Sprintf("indexing %d %s", i, strings.Repeat(".", 200))}
		if c.Notify(ctx, "window/logMessage", note) != nil {
			return
		}
	}
	_ = c.Notify(ctx, "textDocument/publishDiagnostics", map[string]any{
		"uri": uri, "version": version,
		"diagnostics": []map[string]any{{
			"range":    map[string]any{"start": map[string]int{"line": 0, "character": 0}, "end": map[string]int{"line": 0, "character": 7}},
			"severity": 1, "message": "found beneath the flood",
		}},
	})
	if mode == "once" {
		// Die once the test has seen the diagnostics (it says so with a
		// file beside the document), so the client never loses them to
		// the exit.
		u, _ := url.Parse(uri)
		stop := filepath.Join(filepath.Dir(u.Path), onceStop)
		for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			if _, err := os.Stat(stop); err == nil {
				break
			}
		}
		os.Exit(3)
	}
}

type stdinout struct{}

func (stdinout) Read(p []byte) (int, error)  { return os.Stdin.Read(p) }
func (stdinout) Write(p []byte) (int, error) { return os.Stdout.Write(p) }
func (stdinout) Close() error                { return os.Stdin.Close() }

// A server that floods the client with notifications neither fails nor
// stalls an edit: its diagnostics, published after the flood, are in the
// result; one that babbles for ever and never publishes costs the edit no
// more than the diagnostics timeout, and the edit is made either way.
func TestFloodingServerDoesNotStallEdits(t *testing.T) {
	t.Parallel()
	t.Run("flood then publish", func(t *testing.T) {
		t.Parallel()
		r := newRig(t, "go", standInServer("flood"), map[string]string{"x.go": "package x\n"})
		for i, next := range []string{"package y", "package z"} {
			text := r.editAndDiagnose(t, "x.go", []string{"package x", "package y"}[i], next)
			if !strings.Contains(text, "found beneath the flood") {
				t.Fatalf("edit %d under a flood of %d notifications:\n%s\nwant the diagnostic published after them", i+1, floodNotes, text)
			}
		}
	})
	t.Run("babble, never publish", func(t *testing.T) {
		t.Parallel()
		r := newRig(t, "go", standInServer("babble"), map[string]string{"x.go": "package x\n"})
		r.m.cfg.Timeout = 500 * time.Millisecond
		start := time.Now()
		text := r.editAndDiagnose(t, "x.go", "package x", "package y")
		if b, _ := os.ReadFile(r.dir + "/x.go"); string(b) != "package y\n" {
			t.Fatalf("the edit was not made: %q", b)
		}
		if !strings.Contains(text, "Diagnostics of x.go are unavailable") {
			t.Fatalf("result:\n%s\nwant diagnostics unavailable", text)
		}
		// The first change of a session may wait coldStart more.
		if took := time.Since(start); took > coldStart+5*time.Second {
			t.Errorf("the edit took %s beside a babbling server", took)
		}
	})
}

// A server that dies after a change is started again by the next edit
// that needs it, and that edit has its diagnostics.
func TestCrashedServerIsRestartedOnNextNeed(t *testing.T) {
	t.Parallel()
	r := newRig(t, "go", standInServer("once"), map[string]string{"x.go": "package x\n"})
	first := r.editAndDiagnose(t, "x.go", "package x", "package y")
	if !strings.Contains(first, "found beneath the flood") {
		t.Fatalf("first edit:\n%s\nwant the server's diagnostic", first)
	}
	if err := os.WriteFile(filepath.Join(r.dir, onceStop), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	// Wait until the first server is gone, so the next edit must start one.
	deadline := time.Now().Add(30 * time.Second)
	for r.m.Status()[0].State == "running" {
		if time.Now().After(deadline) {
			t.Fatal("the stand-in server did not exit")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := os.Remove(filepath.Join(r.dir, onceStop)); err != nil {
		t.Fatal(err)
	}
	second := r.editAndDiagnose(t, "x.go", "package y", "package z")
	if !strings.Contains(second, "found beneath the flood") {
		t.Fatalf("edit after the server died:\n%s\nwant diagnostics from a restarted server", second)
	}
}
