//go:build linux

package checkpoint

import (
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// linkFile gives the open file f a second name, dst, without copying it:
// through /proc/self/fd, so the name is the inode f has open, whatever
// has happened to its path since.
func linkFile(f *os.File, dst string) error {
	return unix.Linkat(unix.AT_FDCWD, "/proc/self/fd/"+strconv.Itoa(int(f.Fd())), unix.AT_FDCWD, dst, unix.AT_SYMLINK_FOLLOW)
}
