//go:build unix

package search

import (
	"io/fs"
	"syscall"
)

// rawFile is a file opened for one sequential read. On Unix it is a bare
// descriptor: os.File adds a poller registration attempt (several system
// calls per open) and a cleanup hook that a search of thousands of small
// files pays for on every one.
type rawFile struct{ fd int }

// openRead opens path read-only. O_NONBLOCK keeps a FIFO that replaced a
// regular file after the walk listed it from blocking the open; it has no
// effect on reads of regular files.
func openRead(path string) (rawFile, error) {
	for {
		fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return rawFile{}, &fs.PathError{Op: "open", Path: path, Err: err}
		}
		return rawFile{fd: fd}, nil
	}
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
