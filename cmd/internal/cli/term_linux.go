package cli

import (
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// isTerminal reports whether r is a terminal a person can answer on (not
// /dev/null, a pipe or a file).
func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}
