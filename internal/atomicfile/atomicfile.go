// Package atomicfile replaces files so that a reader or a crash sees the old
// content or the new, never a mix: write a temp file in the same directory,
// fsync it, rename it over the target, fsync the directory. Every file the
// deck keeps for itself (checkpoint indexes, session files) is written here.
//
// The workspace tools (write, edit) do the same through an os.Root so that
// a symlink cannot lead them outside the workspace; see tools/files.
package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
)

// TempPrefix starts the name of every temp file this package creates, so
// a sweep can tell leftovers of a crash from real files.
const TempPrefix = ".tmp-"

// WriteFile atomically replaces path with data, creating it with perm if
// it does not exist.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, TempPrefix+"*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(perm)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	return SyncDir(dir)
}

// SyncDir flushes a directory's entries (a rename, a new file) to disk.
// File systems that cannot sync a directory are not an error.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) {
		return err
	}
	return nil
}
