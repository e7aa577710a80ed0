// Package flock is the one advisory-lock helper of the deck: the checkpoint
// store, the ledger log, the memory card's file and the per-file locks of
// write, edit and rewind all take their locks here. Locks are whole-file flock(2) locks, owned by an
// open file description, so two opens in one process exclude each other just
// as two processes do, and the kernel drops a lock when its holder dies.
//
// A target's lock lives in a separate lock file (see [Target]), never on the
// target itself: the target is replaced by rename, which would leave a lock
// on the old inode behind.
package flock

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// ErrLocked is returned by [TryLock] when someone else holds the lock.
var ErrLocked = errors.New("locked by someone else")

// Held is a lock taken by [Acquire]; Release gives it back.
type Held struct{ f *os.File }

// Files creates folders and opens files: the workspace package's, which
// open them beneath a state folder without following links, or [OS].
type Files interface {
	MkdirAll(path string, perm fs.FileMode) error
	OpenFile(path string, flag int, perm fs.FileMode) (*os.File, error)
}

// OS is [Files] of package os.
type OS struct{}

// MkdirAll is os.MkdirAll.
func (OS) MkdirAll(path string, perm fs.FileMode) error { return os.MkdirAll(path, perm) }

// OpenFile is os.OpenFile.
func (OS) OpenFile(path string, flag int, perm fs.FileMode) (*os.File, error) {
	return os.OpenFile(path, flag, perm)
}

// Acquire opens (creating it, mode 0600) the lock file at path and takes
// its exclusive lock, waiting for it. The folder must exist.
func Acquire(path string) (*Held, error) { return AcquireIn(OS{}, path) }

// AcquireIn is [Acquire] with the lock file opened through files.
func AcquireIn(files Files, path string) (*Held, error) {
	f, err := files.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := Lock(f); err != nil {
		f.Close()
		return nil, err
	}
	return &Held{f: f}, nil
}

// Release unlocks and closes the lock file. The file stays: removing it
// would let a waiter lock an inode a newcomer no longer sees.
func (h *Held) Release() error {
	if h == nil || h.f == nil {
		return nil
	}
	err := Unlock(h.f)
	if cerr := h.f.Close(); err == nil {
		err = cerr
	}
	h.f = nil
	return err
}

// Target returns the lock file, inside dir, of the file at path: its name
// is a hash of path, so any path (long, with any bytes) maps to a short,
// fixed-length name. path should be absolute with symlinks followed (see
// [RealPath]), so every name of one file meets on one lock.
func Target(dir, path string) string {
	sum := sha256.Sum256([]byte(path))
	return filepath.Join(dir, hex.EncodeToString(sum[:16])+".lock")
}

// AcquireTarget creates dir and takes the lock of path in it, both
// through files (which the caller chooses so that a state folder gets its
// .gitignore and no planted link is followed).
func AcquireTarget(dir, path string, files Files) (*Held, error) {
	if err := files.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("creating the lock folder: %w", err)
	}
	h, err := AcquireIn(files, Target(dir, path))
	if err != nil {
		return nil, fmt.Errorf("locking: %w", err)
	}
	return h, nil
}

// RealPath follows the symlinks of the absolute path abs. For a path that
// does not exist yet it follows those of the longest prefix that does and
// appends the rest.
func RealPath(abs string) (string, error) {
	p, rest := abs, ""
	for {
		r, err := filepath.EvalSymlinks(p)
		if err == nil {
			return filepath.Join(r, rest), nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		parent := filepath.Dir(p)
		if parent == p {
			return abs, nil
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
}
