//go:build unix

package childproc

import (
	"os"
	"os/exec"
	"syscall"
)

// OwnGroup makes cmd lead a process group of its own when it starts, so
// signals to the group reach every process it starts; cmd's other
// SysProcAttr fields are kept. A cmd that starts a session of its own
// (a confined one, see jail.Wrap) leads its group already.
func OwnGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	if !cmd.SysProcAttr.Setsid {
		cmd.SysProcAttr.Setpgid = true
	}
}

// signalGroup sends SIGKILL (hard) or SIGTERM to cmd's group; a group
// already gone is not an error.
func signalGroup(cmd *exec.Cmd, hard bool) {
	sig := syscall.SIGTERM
	if hard {
		sig = syscall.SIGKILL
	}
	_ = syscall.Kill(-cmd.Process.Pid, sig)
}

// sendGroup sends sig to cmd's group; a group already gone is not an
// error.
func sendGroup(cmd *exec.Cmd, sig os.Signal) {
	if s, ok := sig.(syscall.Signal); ok {
		_ = syscall.Kill(-cmd.Process.Pid, s)
	}
}

// sessionLeader reports whether cmd starts a session of its own, which
// makes it lead a process group too.
func sessionLeader(cmd *exec.Cmd) bool { return cmd.SysProcAttr.Setsid }
