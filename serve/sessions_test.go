package serve

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Two clients of one HTTP server are two sessions: neither sees the
// other's checklist, reads or processes, and ending one stops only its
// processes.
func TestSessionsAreSeparate(t *testing.T) {
	t.Parallel()
	dir := workspace(t, map[string]string{"notes.txt": "one\n"})
	url, srv := startHTTP(t, sessionOptions(dir), HTTPOptions{})
	a, b := httpClient(t, url, nil), httpClient(t, url, nil)

	mustSucceed(t, "todo_set", call(t, a, "todo_set", map[string]any{"todos": []map[string]any{
		{"content": "Ship serve", "status": "in_progress", "activeForm": "Shipping serve"}}}))
	if out := mustSucceed(t, "todo_read A", call(t, a, "todo_read", map[string]any{})); !strings.Contains(out, "Shipping serve") {
		t.Errorf("A's checklist: %q", out)
	}
	if out := text(call(t, b, "todo_read", map[string]any{})); strings.Contains(out, "Ship") {
		t.Errorf("B sees A's checklist: %q", out)
	}

	mustSucceed(t, "read A", call(t, a, "read", map[string]any{"path": "notes.txt"}))
	res := call(t, b, "edit", map[string]any{"path": "notes.txt", "old_string": "one", "new_string": "two"})
	if !res.IsError || !strings.Contains(text(res), "read") {
		t.Errorf("B edited a file only A had read: %s", text(res))
	}
	mustSucceed(t, "edit A", call(t, a, "edit", map[string]any{"path": "notes.txt", "old_string": "one", "new_string": "two"}))

	mustSucceed(t, "process A", call(t, a, "process", map[string]any{"action": "start", "command": "echo $$ > a.pid; exec sleep 60"}))
	mustSucceed(t, "process B", call(t, b, "process", map[string]any{"action": "start", "command": "echo $$ > b.pid; exec sleep 60"}))
	pidA, pidB := waitPID(t, filepath.Join(dir, "a.pid")), waitPID(t, filepath.Join(dir, "b.pid"))
	if out := text(call(t, b, "process", map[string]any{"action": "list"})); strings.Contains(out, "a.pid") || !strings.Contains(out, "b.pid") {
		t.Errorf("B's process list should hold only its own process:\n%s", out)
	}
	if n := srv.Sessions(); n != 2 {
		t.Errorf("server has %d deck sessions, want 2", n)
	}

	// A leaves: its process dies, B's lives on.
	a.Close()
	waitGone(t, pidA, 10*time.Second)
	if !alive(pidB) {
		t.Error("B's process died when A's session ended")
	}
	deadline := time.Now().Add(5 * time.Second)
	for srv.Sessions() != 1 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := srv.Sessions(); n != 1 {
		t.Errorf("after A left the server has %d deck sessions, want 1", n)
	}
	b.Close()
	waitGone(t, pidB, 10*time.Second)
	if b, _ := os.ReadFile(filepath.Join(dir, "notes.txt")); string(b) != "two\n" {
		t.Errorf("notes.txt = %q", b)
	}
}
