//go:build !linux

package workspace

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/indusagi/induscode/internal/atomicfile"
)

// Elsewhere than Linux the walk checks each step with Lstat before it
// uses the path: it refuses what a repository planted, though a process
// racing the check could still swap an entry in between.

// check refuses a symlink or non-folder on the way to path, and a final
// entry that exists but is not of the wanted kind.
func check(path string, wantDir bool) error {
	state, names, ok := beneath(path)
	if !ok {
		return nil
	}
	at := state
	for i := -1; i < len(names); i++ {
		if i >= 0 {
			at = filepath.Join(at, names[i])
		}
		fi, err := os.Lstat(at)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		last := i == len(names)-1
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			return &UnsafeError{Path: at, Reason: "a symlink"}
		case (!last || wantDir) && !fi.IsDir():
			return &UnsafeError{Path: at, Reason: "not a folder"}
		case last && !wantDir && !fi.Mode().IsRegular():
			return &UnsafeError{Path: at, Reason: "not a regular file"}
		}
	}
	return nil
}

// MkdirAll creates the folder path and its parents like os.MkdirAll. The
// state folder, when it is created here, gets a .gitignore holding "*"
// first, so the state never shows up in git status.
func MkdirAll(path string, perm fs.FileMode) error {
	if err := check(path, true); err != nil {
		return err
	}
	if state, _, ok := beneath(path); ok {
		if err := os.Mkdir(state, 0o755); err == nil {
			if err := writeIgnore(state); err != nil {
				return err
			}
		}
	}
	return os.MkdirAll(path, perm)
}

func writeIgnore(state string) error {
	return os.WriteFile(filepath.Join(state, ".gitignore"), []byte(ignoreAll), 0o644)
}

// OpenFile is os.OpenFile after the checks above.
func OpenFile(path string, flag int, perm fs.FileMode) (*os.File, error) {
	if err := check(path, false); err != nil {
		return nil, err
	}
	return os.OpenFile(path, flag, perm)
}

// ReadDir is os.ReadDir after the checks above.
func ReadDir(path string) ([]fs.DirEntry, error) {
	if err := check(path, true); err != nil {
		return nil, err
	}
	return os.ReadDir(path)
}

// Lstat is os.Lstat after the checks of the folders above path.
func Lstat(path string) (fs.FileInfo, error) {
	if err := check(filepath.Dir(path), true); err != nil {
		return nil, err
	}
	return os.Lstat(path)
}

// Remove is os.Remove after the checks of the folders above path.
func Remove(path string) error {
	if err := check(filepath.Dir(path), true); err != nil {
		return err
	}
	return os.Remove(path)
}

// Rename is os.Rename after the checks of both folders.
func Rename(oldpath, newpath string) error {
	if err := check(filepath.Dir(oldpath), true); err != nil {
		return err
	}
	if err := check(filepath.Dir(newpath), true); err != nil {
		return err
	}
	return os.Rename(oldpath, newpath)
}

// CreateTemp is atomicfile.CreateTemp after the checks of dir.
func CreateTemp(dir string) (*os.File, error) {
	if err := check(dir, true); err != nil {
		return nil, err
	}
	return atomicfile.CreateTemp(dir)
}

// WriteFile is atomicfile.WriteFile after the checks of path.
func WriteFile(path string, data []byte, perm fs.FileMode) error {
	if err := check(path, false); err != nil {
		return err
	}
	return atomicfile.WriteFile(path, data, perm)
}

// Sweep is atomicfile.Sweep after the checks of dir.
func Sweep(dir string) int {
	if check(dir, true) != nil {
		return 0
	}
	return atomicfile.Sweep(dir)
}

// renameInto moves the file old into the folder dir as name.
func renameInto(old, dir, name string) error { return Rename(old, filepath.Join(dir, name)) }

func kindOf(m fs.FileMode) string {
	if m&fs.ModeSymlink != 0 {
		return "a symlink"
	}
	return "not a folder"
}

// Link is os.Link after the checks of both folders.
func Link(oldpath, newpath string) error {
	if err := check(filepath.Dir(oldpath), true); err != nil {
		return err
	}
	if err := check(filepath.Dir(newpath), true); err != nil {
		return err
	}
	return os.Link(oldpath, newpath)
}

// SyncDir is atomicfile.SyncDir after the checks of path.
func SyncDir(path string) error {
	if err := check(path, true); err != nil {
		return err
	}
	return atomicfile.SyncDir(path)
}
