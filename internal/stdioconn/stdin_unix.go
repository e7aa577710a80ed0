//go:build unix

package stdioconn

import (
	"fmt"
	"os"
	"runtime"
	"time"

	"golang.org/x/sys/unix"
)

// PollableStdin returns standard input as a file whose reads wait in the
// Go runtime's poller, with restore, which closes that file and puts
// standard input back as it was; ok is false (and nothing changed) unless
// standard input is a pipe or a socket, as MCP clients connect it.
//
// os.Stdin reads block a thread in read(2). The scheduler then counts its
// processor as busy in a system call, so a goroutine that the message
// readies waits until the runtime's monitor takes that processor back,
// tens of microseconds, and on one processor (the calm server of package
// serve) every message pays that. A pollable file parks the reading
// goroutine instead, and closing it ends a read under way, so the
// connection can read on its caller's goroutine ([Options.CloseUnblocks]).
//
// Non-blocking mode belongs to the open file, which standard input shares
// with whoever gave it. On Linux a pipe is opened afresh through
// /proc/self/fd/0, a file of its own whose mode nobody else sees. A socket
// cannot be, so it is read through a duplicate descriptor and its mode is
// set on the shared file: restore clears it again unless it was already
// set (a process killed before restore leaves it set, on a file that is
// normally its alone). Either way the reads go through a descriptor of
// their own, marked close-on-exec, and closing it leaves descriptor 0 be.
func PollableStdin() (f *os.File, restore func(), ok bool) {
	return pollable(0, "/dev/stdin")
}

func pollable(fd int, name string) (*os.File, func(), bool) {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, nil, false
	}
	kind := st.Mode & unix.S_IFMT
	if kind != unix.S_IFIFO && kind != unix.S_IFSOCK {
		return nil, nil, false // a terminal or a file: leave it be
	}
	if kind == unix.S_IFIFO && runtime.GOOS == "linux" {
		if f, ok := reopen(fd, name); ok {
			return f, func() { f.Close() }, true
		}
	}
	flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	if err != nil {
		return nil, nil, false
	}
	was := flags&unix.O_NONBLOCK != 0
	dup, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, nil, false
	}
	put := func() {
		if !was {
			_ = unix.SetNonblock(fd, false)
		}
	}
	if err := unix.SetNonblock(dup, true); err != nil {
		unix.Close(dup)
		return nil, nil, false
	}
	f := os.NewFile(uintptr(dup), name)
	if f.SetReadDeadline(time.Time{}) != nil { // the poller refused it
		f.Close()
		put()
		return nil, nil, false
	}
	return f, func() { f.Close(); put() }, true
}

// reopen opens a pipe again through /proc, non-blocking, as a file the
// poller watches.
func reopen(fd int, name string) (*os.File, bool) {
	nfd, err := unix.Open(fmt.Sprintf("/proc/self/fd/%d", fd), unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, false // /proc is not mounted
	}
	f := os.NewFile(uintptr(nfd), name)
	if f.SetReadDeadline(time.Time{}) != nil {
		f.Close()
		return nil, false
	}
	return f, true
}
