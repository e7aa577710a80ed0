//go:build !linux

package cli

import (
	"io"
	"os"
)

// isTerminal reports whether r is a terminal a person can answer on; off
// Linux, a character device is taken for one.
func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
