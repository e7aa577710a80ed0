//go:build unix

package rpc

import (
	"os/exec"
	"syscall"
)

// ownProcessGroup makes the addon lead a process group of its own, so
// stopping it reaches every process it started.
func ownProcessGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
}

// signalGroup sends SIGKILL (hard) or SIGTERM to the addon's group; a
// group already gone is not an error.
func signalGroup(cmd *exec.Cmd, hard bool) {
	sig := syscall.SIGTERM
	if hard {
		sig = syscall.SIGKILL
	}
	_ = syscall.Kill(-cmd.Process.Pid, sig)
}
