//go:build !unix

package childproc

import (
	"os"
	"os/exec"
)

// OwnGroup is a no-op where process groups do not exist; stopping a child
// then reaches only the child itself.
func OwnGroup(*exec.Cmd) {}

// signalGroup kills the direct child.
func signalGroup(cmd *exec.Cmd, _ bool) { _ = cmd.Process.Kill() }

// sendGroup sends sig to the direct child.
func sendGroup(cmd *exec.Cmd, sig os.Signal) { _ = cmd.Process.Signal(sig) }

func sessionLeader(*exec.Cmd) bool { return false }
