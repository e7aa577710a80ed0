//go:build !linux

package walk

import (
	"os"
	"time"
)

// ModTime returns f's modification time, of the file itself if it is a
// symlink (as lstat does); it releases f. Here directories are never kept
// open, so f is looked up by its path.
func (f File) ModTime() (time.Time, error) {
	defer f.Release()
	fi, err := os.Lstat(f.Path)
	if err != nil {
		return time.Time{}, err
	}
	return fi.ModTime(), nil
}

// closeFD is never called where no directory is kept open.
func closeFD(int) {}
