//go:build !unix

package flock

import "os"

// Without flock(2) these are no-ops: only in-process mutexes serialise, and
// two processes working on one file at the same instant may collide.

// Lock takes the exclusive lock of f (a no-op here).
func Lock(*os.File) error { return nil }

// TryLock takes the exclusive lock of f without waiting (a no-op here).
func TryLock(*os.File) error { return nil }

// Unlock releases the lock of f (a no-op here).
func Unlock(*os.File) error { return nil }
