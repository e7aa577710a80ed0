//go:build unix

package atomicfile

import (
	"errors"
	"syscall"
)

// pidAlive reports whether a process with this id exists. EPERM means it
// exists under another user; only ESRCH says it is gone.
func pidAlive(pid int) bool {
	return !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}
