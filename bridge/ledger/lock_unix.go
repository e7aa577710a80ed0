//go:build unix

package ledger

import (
	"errors"
	"os"
	"syscall"
)

// lock takes an exclusive advisory lock on f without waiting; it is released
// when f is closed.
func lock(f *os.File) error {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return ErrLocked
	}
	return err
}
