//go:build unix && !linux

package walk

import (
	"io/fs"
	"syscall"
)

// OpenFD opens f with the open(2) flags given and returns the bare
// descriptor, for readers that want no os.File around it; it releases f.
// A file of a walk is not followed if a symlink has taken its place.
func (f File) OpenFD(flags int) (int, error) {
	defer f.Release()
	if f.walked {
		flags |= syscall.O_NOFOLLOW
	}
	for {
		fd, err := syscall.Open(f.Path, flags, 0)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return -1, &fs.PathError{Op: "open", Path: f.Path, Err: err}
		}
		return fd, nil
	}
}
