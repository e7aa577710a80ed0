//go:build unix

package bridge

import (
	"os/exec"
	"syscall"
)

// ownProcessGroup makes the child lead a new process group, so signals to
// the group reach every process it starts.
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup signals the child's whole process group: SIGKILL when hard,
// SIGTERM otherwise. A group already gone is not an error.
func killGroup(cmd *exec.Cmd, hard bool) {
	sig := syscall.SIGTERM
	if hard {
		sig = syscall.SIGKILL
	}
	_ = syscall.Kill(-cmd.Process.Pid, sig)
}
