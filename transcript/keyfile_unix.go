//go:build unix

package transcript

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// openKeyFile opens the key without following a link, and without waiting
// on a pipe planted in its place.
func openKeyFile(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
}

// isLinkRefusal reports whether err is O_NOFOLLOW's refusal of a link.
func isLinkRefusal(err error) bool { return errors.Is(err, syscall.ELOOP) }

// fileOwner is the uid that owns fi's file.
func fileOwner(fi fs.FileInfo) (int, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}
