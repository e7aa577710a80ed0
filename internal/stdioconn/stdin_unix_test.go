//go:build unix

package stdioconn

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func nonblocking(t *testing.T, fd int) bool {
	t.Helper()
	flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	if err != nil {
		t.Fatal(err)
	}
	return flags&unix.O_NONBLOCK != 0
}

// waitParked waits until a goroutine that test started is parked in the
// poller, so that what the test does next meets a read under way, not one
// that has yet to start.
func waitParked(t *testing.T, test string) {
	t.Helper()
	buf := make([]byte, 1<<20)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		n := runtime.Stack(buf, true)
		for g := range strings.SplitSeq(string(buf[:n]), "\n\n") {
			if strings.Contains(g, "runtime_pollWait") && strings.Contains(g, "created by "+modulePath+"/internal/"+test) {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("the read never parked in the poller")
		}
	}
}

const modulePath = "github.com/indusagi/induscode"

// A pipe or a socket given as standard input is read through the poller:
// data arrives, Close ends a read under way, and restore leaves the
// original descriptor open and blocking again.
func TestPollableReadsPipesAndSockets(t *testing.T) {
	pipe := func(t *testing.T) (int, *os.File) {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { r.Close(); w.Close() })
		// os.Pipe ends are non-blocking already; a client's pipe is not.
		if err := unix.SetNonblock(int(r.Fd()), false); err != nil {
			t.Fatal(err)
		}
		return int(r.Fd()), w
	}
	socket := func(t *testing.T) (int, *os.File) {
		fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
		if err != nil {
			t.Fatal(err)
		}
		w := os.NewFile(uintptr(fds[1]), "peer")
		t.Cleanup(func() { unix.Close(fds[0]); w.Close() })
		return fds[0], w
	}
	for name, open := range map[string]func(*testing.T) (int, *os.File){"pipe": pipe, "socket": socket} {
		t.Run(name, func(t *testing.T) {
			fd, peer := open(t)
			f, restore, ok := pollable(fd, "stdin")
			if !ok {
				t.Fatal("a blocking pipe or socket was not made pollable")
			}
			if name == "pipe" && runtime.GOOS == "linux" && nonblocking(t, fd) {
				t.Error("a pipe's shared mode was changed: it should have been opened afresh")
			}
			if _, err := peer.Write([]byte("line\n")); err != nil {
				t.Fatal(err)
			}
			buf := make([]byte, 16)
			if n, err := f.Read(buf); err != nil || string(buf[:n]) != "line\n" {
				t.Fatalf("read %q, %v", buf[:n], err)
			}
			read := make(chan error, 1)
			go func() { _, err := f.Read(buf); read <- err }()
			waitParked(t, "stdioconn.TestPollableReadsPipesAndSockets")
			f.Close()
			select {
			case err := <-read:
				if !errors.Is(err, os.ErrClosed) {
					t.Errorf("a read ended by Close returned %v, want os.ErrClosed", err)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("Close did not end a read under way")
			}
			restore()
			if nonblocking(t, fd) {
				t.Error("restore left the descriptor non-blocking")
			}
			if _, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err != nil {
				t.Errorf("the original descriptor was closed: %v", err)
			}
		})
	}
}

// A descriptor that was non-blocking already stays so after restore.
func TestPollableKeepsANonBlockingMode(t *testing.T) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fds[0])
	defer unix.Close(fds[1])
	if err := unix.SetNonblock(fds[0], true); err != nil {
		t.Fatal(err)
	}
	_, restore, ok := pollable(fds[0], "stdin")
	if !ok {
		t.Fatal("not pollable")
	}
	restore()
	if !nonblocking(t, fds[0]) {
		t.Error("restore cleared a mode the descriptor had before")
	}
}

// A regular file (input redirected from a file) and a terminal-like
// character device are left as they are.
func TestPollableLeavesFilesAlone(t *testing.T) {
	path := filepath.Join(t.TempDir(), "in.jsonl")
	if err := os.WriteFile(path, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, os.DevNull} {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, _, ok := pollable(int(f.Fd()), "stdin"); ok {
			t.Errorf("%s was made pollable", p)
		}
		if nonblocking(t, int(f.Fd())) {
			t.Errorf("%s was left non-blocking", p)
		}
		var st syscall.Stat_t
		if err := syscall.Fstat(int(f.Fd()), &st); err != nil {
			t.Errorf("%s was closed: %v", p, err)
		}
	}
}
