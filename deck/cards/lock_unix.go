//go:build unix

package cards

import (
	"os"
	"syscall"
)

// lockFile takes an exclusive advisory lock on f, waiting for it. flock
// locks belong to the open file, so two FileMemory values in one process
// exclude each other as two processes do.
func lockFile(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			return err
		}
	}
}

func unlockFile(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }
