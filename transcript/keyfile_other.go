//go:build !unix

package transcript

import (
	"io/fs"
	"os"
)

// openKeyFile opens the key. Systems without O_NOFOLLOW check for a link
// first instead; the window between the check and the open is theirs.
func openKeyFile(path string) (*os.File, error) {
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return nil, errKeyIsLink
	}
	return os.Open(path)
}

type keyLinkError struct{}

func (keyLinkError) Error() string { return "the key file is a symbolic link" }

var errKeyIsLink error = keyLinkError{}

// isLinkRefusal reports whether err is openKeyFile's refusal of a link.
func isLinkRefusal(err error) bool { return err == errKeyIsLink }

// fileOwner is not known on these systems.
func fileOwner(fs.FileInfo) (int, bool) { return 0, false }
