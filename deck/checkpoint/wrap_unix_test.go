//go:build unix

package checkpoint

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/indusagi/induscode/tool"
)

// A write aimed at a named pipe must reach the tool (which refuses it)
// instead of hanging while the checkpoint opens the pipe to read it.
func TestWrapDoesNotBlockOnAFIFO(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("cannot make a FIFO here: %v", err)
	}
	store := &spyStore{Store: NewMemStore()}
	w := Wrap(writeTool("write"), store)
	done := make(chan struct{})
	go func() {
		defer close(done)
		runTool(context.Background(), t, w, tool.NewEnv(dir), map[string]any{"path": "pipe", "content": "x", "fail": true})
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second): // generous: a loaded CI machine, yet the hang is forever
		// Release the blocked open so the goroutine ends.
		if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
		<-done
		t.Fatal("the wrapped write blocked opening a FIFO")
	}
	if store.records != 0 {
		t.Errorf("recorded a FIFO (%d records); only regular files are checkpointed", store.records)
	}
}
