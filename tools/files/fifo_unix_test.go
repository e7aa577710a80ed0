//go:build unix

package files

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A named pipe is refused at once: opening it would block until a writer
// came along.
func TestReadFIFO(t *testing.T) {
	t.Parallel()
	env, dir := newEnv(t)
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o644); err != nil {
		t.Skipf("cannot make a FIFO here: %v", err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		mustFail(t, call(t, ReadTool(), env, map[string]any{"path": "pipe"}), "pipe is a named pipe (FIFO)")
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("read blocked on a FIFO")
	}
}
