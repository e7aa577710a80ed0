//go:build unix

package rpc

import "syscall"

// processGone reports whether no process has pid (or it may not be
// signalled, which for a child of ours means it is gone).
func processGone(pid int) bool { return syscall.Kill(pid, 0) != nil }
