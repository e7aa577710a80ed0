//go:build unix

package checkpoint

import (
	"os"
	"syscall"
)

// lockFile takes an exclusive advisory lock on f, waiting for it, so that
// two indusr processes working in one workspace do not interleave their
// read-modify-write of the index.
func lockFile(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			return err
		}
	}
}

func unlockFile(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }
