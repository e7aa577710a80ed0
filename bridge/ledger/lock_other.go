//go:build !unix

package ledger

import "os"

// lock is a no-op where flock does not exist: one writer per log is then
// the caller's to ensure.
func lock(*os.File) error { return nil }

func unlock(*os.File) {}
