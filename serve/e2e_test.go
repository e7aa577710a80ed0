package serve

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// transports opens a client session on a fresh server in dir, over stdio
// (the real binary) or over HTTP (in process), answering calls with JSON
// bodies (the default) or with event streams.
var transports = []struct {
	name string
	open func(t *testing.T, dir string, ev *events) *mcp.ClientSession
}{
	{"stdio", func(t *testing.T, dir string, ev *events) *mcp.ClientSession {
		return stdioClient(t, dir, ev, "--no-mcp")
	}},
	{"http", func(t *testing.T, dir string, ev *events) *mcp.ClientSession {
		url, _ := startHTTP(t, sessionOptions(dir), HTTPOptions{})
		return httpClient(t, url, ev)
	}},
	{"http-sse", func(t *testing.T, dir string, ev *events) *mcp.ClientSession {
		url, _ := startHTTP(t, sessionOptions(dir), HTTPOptions{EventStreams: true})
		return httpClient(t, url, ev)
	}},
}

// What an agent does through a mounted deck: list the tools, read, edit
// and grep a file, run bash, start a background process and read its
// output in a later call.
func TestAgentWorkflow(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			t.Parallel()
			dir := workspace(t, map[string]string{"main.go": "package main\n\nfunc main() { println(\"hello\") }\n"})
			cs := tr.open(t, dir, nil)

			tools := toolNames(t, cs)
			for _, name := range []string{"read", "ls", "grep", "find", "write", "edit", "bash", "process", "todo_read", "todo_set", "bg-process"} {
				if tools[name] == nil {
					t.Errorf("tools/list lacks %s", name)
				}
			}
			if r := tools["read"]; r != nil && (!r.Annotations.ReadOnlyHint || r.Title == "" || r.Description == "") {
				t.Errorf("read is listed without its title, description or readOnlyHint: %+v", r)
			}
			if b := tools["bash"]; b != nil && (b.Annotations.DestructiveHint == nil || !*b.Annotations.DestructiveHint) {
				t.Errorf("bash is not marked destructive: %+v", b.Annotations)
			}

			out := mustSucceed(t, "read", call(t, cs, "read", map[string]any{"path": "main.go"}))
			if !strings.Contains(out, `println("hello")`) {
				t.Errorf("read returned %q", out)
			}
			mustSucceed(t, "edit", call(t, cs, "edit", map[string]any{"path": "main.go", "old_string": `"hello"`, "new_string": `"served"`}))
			out = mustSucceed(t, "grep", call(t, cs, "grep", map[string]any{"pattern": "served", "output_mode": "content"}))
			if !strings.Contains(out, "main.go") || !strings.Contains(out, `println("served")`) {
				t.Errorf("grep after the edit returned %q", out)
			}
			out = mustSucceed(t, "bash", call(t, cs, "bash", map[string]any{"command": "grep -c served main.go"}))
			if !strings.HasPrefix(out, "1\n") {
				t.Errorf("bash returned %q", out)
			}

			// A background process outlives the call that started it and is
			// read in a later call of the same session.
			out = mustSucceed(t, "process start", call(t, cs, "process", map[string]any{"action": "start", "command": "echo ready; sleep 30"}))
			id := processID(t, out)
			out = mustSucceed(t, "process wait", call(t, cs, "process", map[string]any{"action": "wait", "id": id, "pattern": "ready", "timeout_ms": 60000}))
			if !strings.Contains(out, "--- stdout: 1 new line ---\nready") {
				t.Fatalf("the background process's output never showed 'ready': %q", out)
			}
		})
	}
}

// processID finds the id in the process tool's start result.
func processID(t *testing.T, out string) string {
	t.Helper()
	for _, f := range strings.Fields(out) {
		f = strings.Trim(f, ".,:;()[]'\"")
		if strings.HasPrefix(f, "p") && len(f) > 1 && strings.Trim(f[1:], "0123456789") == "" {
			return f
		}
	}
	t.Fatalf("no process id in %q", out)
	return ""
}

// Cancelling a call (notifications/cancelled, sent by the SDK when the
// caller's context ends) stops a long bash command and every process it
// started.
func TestCancelKillsTheCommand(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			t.Parallel()
			dir := workspace(t, nil)
			cs := tr.open(t, dir, nil)
			pidFile := filepath.Join(dir, "pid")
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			start := time.Now()
			go func() {
				_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "bash", Arguments: map[string]any{
					"command": "sleep 60 & echo $! > pid; wait"}})
				done <- err
			}()
			pid := waitPID(t, pidFile)
			cancel()
			select {
			case err := <-done:
				if !errors.Is(err, context.Canceled) {
					t.Errorf("cancelled call returned %v", err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("the cancelled call did not return")
			}
			waitGone(t, pid, 10*time.Second)
			if time.Since(start) > 30*time.Second {
				t.Errorf("cancel took %v", time.Since(start))
			}
			// The session goes on serving.
			mustSucceed(t, "bash after cancel", call(t, cs, "bash", map[string]any{"command": "true"}))
		})
	}
}

// A client that sends a progress token hears from a long bash command at
// least once a second, with its latest output line.
func TestProgressOfBash(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			t.Parallel()
			ev := newEvents()
			cs := tr.open(t, workspace(t, nil), ev)
			params := &mcp.CallToolParams{Name: "bash", Arguments: map[string]any{"command": "echo step one; sleep 1.5; echo step two; sleep 1.5"}}
			params.SetProgressToken("tok-1")
			res, err := cs.CallTool(context.Background(), params)
			if err != nil || res.IsError {
				t.Fatalf("bash: %v %v", err, res)
			}
			// Notifications may trail the result by a moment.
			deadline := time.Now().Add(2 * time.Second)
			var got []*mcp.ProgressNotificationParams
			for {
				got = ev.progressFor("tok-1")
				if len(got) >= 2 || time.Now().After(deadline) {
					break
				}
				time.Sleep(20 * time.Millisecond)
			}
			if len(got) < 2 {
				t.Fatalf("want at least 2 progress notifications in 3 s, got %d", len(got))
			}
			var msgs []string
			for i, p := range got {
				msgs = append(msgs, p.Message)
				if i > 0 && p.Progress <= got[i-1].Progress {
					t.Errorf("progress went from %v to %v", got[i-1].Progress, p.Progress)
				}
			}
			if !strings.Contains(strings.Join(msgs, "|"), "step") {
				t.Errorf("progress messages %q do not carry the output line", msgs)
			}
		})
	}
}
