//go:build unix

package shell

import (
	"bytes"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/indusagi/induscode/internal/childproc"
)

// hungUp reports whether the terminal's child end is closed everywhere.
func hungUp(t *testing.T, master *os.File) bool {
	t.Helper()
	rc, err := master.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var revents int16
	if err := rc.Control(func(fd uintptr) {
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		if _, err := unix.Poll(fds, 0); err != nil {
			t.Error(err)
		}
		revents = fds[0].Revents
	}); err != nil {
		t.Fatal(err)
	}
	return revents&unix.POLLHUP != 0
}

// lateSink holds its first write until release is closed: a reader that
// falls behind the command it reads.
type lateSink struct {
	release chan struct{}
	once    sync.Once
	mu      sync.Mutex
	got     bytes.Buffer
}

func (s *lateSink) write(p []byte) {
	s.once.Do(func() { <-s.release })
	s.mu.Lock()
	s.got.Write(p)
	s.mu.Unlock()
}

func (s *lateSink) close() {}

func (s *lateSink) text() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.got.String()
}

// A command that prints and exits at once keeps its last lines even when
// they are read only after it has exited: the terminal is not closed
// under unread output.
func TestTerminalOutputOutlivesTheCommand(t *testing.T) {
	t.Parallel()
	ward := childproc.NewWard("")
	for round := range 10 {
		s := &lateSink{release: make(chan struct{})}
		g, master, err := spawnTerminal(ward, nil, `printf 'first\n'; sleep 0.05; printf 'last words\n'`, t.TempDir(), nil, 80, 24, s)
		if err != nil {
			t.Fatal(err)
		}
		select {
		case <-g.child.Exited():
		case <-time.After(20 * time.Second):
			t.Fatal("the command never exited")
		}
		// Some systems throw away what a terminal holds once no process
		// has it open: it must stay open while the output is unread.
		time.Sleep(50 * time.Millisecond)
		if hungUp(t, master) {
			t.Fatalf("round %d: the terminal was closed with its output unread", round)
		}
		close(s.release)
		select {
		case <-g.done:
		case <-time.After(20 * time.Second):
			t.Fatal("the group was never done")
		}
		if got := s.text(); !strings.Contains(got, "first") || !strings.Contains(got, "last words") {
			t.Fatalf("round %d: the terminal gave %q, without the command's last line", round, got)
		}
	}
}
