//go:build unix

package tmuxterm

import (
	"syscall"
	"time"
)

// waitGone waits until no process has pid, or limit passes.
func waitGone(pid int, limit time.Duration) {
	for deadline := time.Now().Add(limit); pid > 0 && time.Now().Before(deadline); {
		if syscall.Kill(pid, 0) == syscall.ESRCH {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}
