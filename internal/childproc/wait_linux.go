package childproc

import (
	"errors"
	"os/exec"

	"golang.org/x/sys/unix"
)

// AwaitExit blocks until the command's process has exited but leaves it a
// zombie (WNOWAIT): while the zombie exists its PID, which is the process
// group id, cannot be handed to a new process, so signalling the group
// cannot hit a stranger. The caller reaps it later with cmd.Wait.
func AwaitExit(cmd *exec.Cmd) (reaped bool, err error) {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, cmd.Process.Pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			// Should not happen for our own child; fall back to reaping.
			return true, cmd.Wait()
		}
		return false, nil
	}
}
