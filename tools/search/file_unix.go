//go:build unix

package search

import (
	"io/fs"
	"syscall"

	"github.com/indusagi/induscode/internal/walk"
)

// rawFile is a file opened for one sequential read. On Unix it is a bare
// descriptor: os.File adds a poller registration attempt (several system
// calls per open) and a cleanup hook that a search of thousands of small
// files pays for on every one.
type rawFile struct{ fd int }

// openRead opens f read-only. O_NONBLOCK keeps a FIFO that replaced a
// regular file after the walk listed it from blocking the open; it has no
// effect on reads of regular files.
func openRead(f walk.File) (rawFile, error) {
	fd, err := f.OpenFD(syscall.O_RDONLY | syscall.O_CLOEXEC | syscall.O_NONBLOCK)
	if err != nil {
		return rawFile{}, err
	}
	return rawFile{fd: fd}, nil
}

// Read reads into p; 0 bytes and a nil error mean end of file.
func (f rawFile) Read(p []byte) (int, error) {
	for {
		n, err := syscall.Read(f.fd, p)
		if err == syscall.EINTR {
			continue
		}
		if err == syscall.EAGAIN {
			return 0, &fs.PathError{Op: "read", Err: err}
		}
		if n < 0 {
			n = 0
		}
		return n, err
	}
}

func (f rawFile) Close() error { return syscall.Close(f.fd) }

// size is the file's size now, or -1 when it cannot be told.
func (f rawFile) size() int64 {
	var st syscall.Stat_t
	if syscall.Fstat(f.fd, &st) != nil {
		return -1
	}
	return st.Size
}
