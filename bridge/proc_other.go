//go:build !unix

package bridge

import "os/exec"

// ownProcessGroup is a no-op where process groups do not exist; teardown
// then reaches only the direct child.
func ownProcessGroup(*exec.Cmd) {}

// killGroup kills the direct child.
func killGroup(cmd *exec.Cmd, _ bool) { _ = cmd.Process.Kill() }
