//go:build unix

package workspace

import "syscall"

// nonBlock opens a named pipe without waiting for a writer; a regular
// file ignores it.
const nonBlock = syscall.O_NONBLOCK
