//go:build !unix

package childproc

import "os/exec"

// OwnGroup is a no-op where process groups do not exist; stopping a child
// then reaches only the child itself.
func OwnGroup(*exec.Cmd) {}

// signalGroup kills the direct child.
func signalGroup(cmd *exec.Cmd, _ bool) { _ = cmd.Process.Kill() }
