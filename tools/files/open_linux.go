package files

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// openRead opens a regular file for reading with as few system calls as
// the kernel allows. os.Open would also try (and, for a regular file,
// fail) to register the descriptor with the network poller and switch it
// to non-blocking mode and back: four more calls, which on a small file
// are a large part of a read's cost.
func openRead(abs string) (*os.File, error) {
	for {
		fd, err := syscall.Open(abs, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, &os.PathError{Op: "open", Path: abs, Err: err}
		}
		return os.NewFile(uintptr(fd), abs), nil
	}
}

// canonicalOpen is canonical(abs) for a file open as f: the kernel's
// name for the descriptor (one readlink) rather than a lstat of every
// component of the path. It falls back to canonical when /proc is not
// mounted or the file was unlinked meanwhile.
func canonicalOpen(f *os.File, abs string) string {
	sc, err := f.SyscallConn()
	if err == nil {
		var p string
		var rerr error
		if err = sc.Control(func(fd uintptr) {
			p, rerr = os.Readlink("/proc/self/fd/" + strconv.FormatUint(uint64(fd), 10))
		}); err == nil && rerr == nil && filepath.IsAbs(p) && !strings.HasSuffix(p, " (deleted)") {
			return p
		}
	}
	return canonical(abs)
}
