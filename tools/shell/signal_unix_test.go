//go:build unix

package shell

import "syscall"

// signalable reports whether pid can be signalled: it exists.
func signalable(pid int) bool { return syscall.Kill(pid, 0) == nil }
