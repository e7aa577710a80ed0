//go:build !linux

package files

import (
	"io/fs"
	"os"
)

// openRead opens a file for reading.
func openRead(abs string) (*os.File, error) { return os.Open(abs) }

// canonicalOpen is canonical(abs); f is already open.
func canonicalOpen(_ *os.File, abs string, _ fs.FileInfo) string { return canonical(abs) }
