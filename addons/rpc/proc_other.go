//go:build !unix

package rpc

import "os/exec"

// ownProcessGroup is a no-op where process groups do not exist.
func ownProcessGroup(*exec.Cmd) {}

// signalGroup kills the direct child.
func signalGroup(cmd *exec.Cmd, _ bool) { _ = cmd.Process.Kill() }
