//go:build unix

package shell

import (
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"github.com/indusagi/induscode/internal/childproc"
	"github.com/indusagi/induscode/internal/jail"
)

// spawnTerminal starts command with a new pseudo-terminal of cols x rows
// as its stdin, stdout and stderr and returns the terminal's controlling
// end, from which its output is pumped into s and to which input is
// written. The command leads a new session (so the terminal is its
// controlling one and Ctrl-C reaches its foreground job), which also
// makes it the leader of a process group of its own.
func spawnTerminal(ward *childproc.Ward, sandbox *jail.Policy, command, dir string, env []string, cols, rows int, s sink) (*group, *os.File, error) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		return nil, nil, fmt.Errorf("opening a pseudo-terminal: %w", err)
	}
	if err := pty.Setsize(tty, &pty.Winsize{Cols: uint16(cols), Rows: uint16(rows)}); err != nil {
		ptmx.Close()
		tty.Close()
		return nil, nil, fmt.Errorf("sizing the pseudo-terminal: %w", err)
	}
	master, err := pollable(ptmx)
	if err != nil {
		tty.Close()
		return nil, nil, err
	}
	cmd := shellCmd(command, nil, dir, env, sandbox)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	// The parent keeps its copy of the child end until the leader's output
	// is read: once the last copy closes, a terminal's unread output may
	// be thrown away (macOS does; Linux has been seen to), and a command
	// that prints and exits at once would lose its last lines.
	g, err := launch(ward, cmd, []*os.File{master}, nil, tty, []sink{s})
	if err != nil {
		return nil, nil, err
	}
	return g, master, nil
}

// catchUpLimit bounds catchUp: a job left in the background may print
// without end, and the group's tidying must go on.
const catchUpLimit = time.Second

// catchUp returns once the terminal holds no output that the pump has not
// read, or after catchUpLimit. Polling the controlling end moves what the
// command wrote into its read queue first, so no output in flight is
// missed.
func (g *group) catchUp() {
	rc, err := g.pipes[0].SyscallConn()
	if err != nil {
		return
	}
	for deadline := time.Now().Add(catchUpLimit); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		pending := false
		rc.Control(func(fd uintptr) {
			fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
			n, err := unix.Poll(fds, 0)
			pending = err == nil && n > 0 && fds[0].Revents&unix.POLLIN != 0
		})
		if !pending {
			return
		}
	}
}

// pollable returns the terminal's controlling end in non-blocking mode,
// served by the runtime's poller, and closes f. The pty package leaves it
// blocking, and a blocking read can neither time out nor be ended by
// Close, so the reader of a terminal whose last process escaped could
// never be stopped.
func pollable(f *os.File) (*os.File, error) {
	fd, err := unix.FcntlInt(f.Fd(), unix.F_DUPFD_CLOEXEC, 0)
	f.Close()
	if err != nil {
		return nil, fmt.Errorf("opening a pseudo-terminal: %w", err)
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("opening a pseudo-terminal: %w", err)
	}
	return os.NewFile(uintptr(fd), "/dev/ptmx"), nil
}

// terminalsSupported says whether start can give a process a terminal.
const terminalsSupported = true
