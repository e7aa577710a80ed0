// Package atomicfile replaces files so that a reader or a crash sees the old
// content or the new, never a mix: write a temp file in the same directory,
// fsync it, rename it over the target, fsync the directory. Every file the
// deck keeps for itself (checkpoint indexes, session files) is written here.
//
// The workspace tools (write, edit) do the same through an os.Root so that
// a symlink cannot lead them outside the workspace; see tools/files.
package atomicfile

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
)

// TempPrefix starts the name of every temp file this package creates, so
// a sweep can tell leftovers of a crash from real files.
const TempPrefix = ".tmp-"

// TempName returns a fresh name for a temp file: TempPrefix, the writer's
// process id and 12 random hex digits, at most 28 bytes whatever the name
// of the file it will replace, so a target with a name of the longest
// length a file system allows (255 bytes) can still be replaced. The pid
// lets a sweep tell a live writer's file from a dead one's (see Sweep).
func TempName() string {
	var suffix [6]byte
	_, _ = rand.Read(suffix[:])
	return TempPrefix + strconv.Itoa(os.Getpid()) + "-" + hex.EncodeToString(suffix[:])
}

// CreateTemp creates a new temp file (named by TempName) in dir.
func CreateTemp(dir string) (*os.File, error) {
	for {
		f, err := os.OpenFile(filepath.Join(dir, TempName()), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue // 48 random bits collided; draw again
		}
		return f, err
	}
}

// WriteFile atomically replaces path with data, creating it with perm if
// it does not exist.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	dir := filepath.Dir(path)
	tmp, err := CreateTemp(dir)
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
	SweepSometimes(dir)
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

// Recorder notes a temp file before it is created; the returned forget
// drops the note once the temp file is renamed or removed. A writer killed
// in between leaves its note behind, by which the next session finds the
// temp file wherever it is and removes it (workspace.Layout.Journal keeps
// them under the state folder). Recording is best effort: a writer that
// cannot record still writes.
type Recorder interface {
	Record(tempPath string) (forget func())
}

// WriteInRoot atomically replaces rel inside root with data, creating
// missing parent directories. Going through an [os.Root] means neither
// "../" nor a symlink can lead the write outside root. perm is the mode
// of the new file (setuid, setgid and sticky bits included); 0 means the
// mode of a newly created file, 0o666 less the umask. A rename
// gives the path a new inode, so hard links keep the old content: that is
// the price of never exposing a partial write. Errors say which step
// failed and carry the underlying error without the root-relative path.
// With rec set, the temp file is recorded there while it exists.
func WriteInRoot(root *os.Root, rel string, data []byte, perm fs.FileMode, rec Recorder) error {
	dir := filepath.Dir(rel)
	if err := root.MkdirAll(dir, 0o777); err != nil {
		return fmt.Errorf("cannot create directory %s: %w", dir, Bare(err))
	}
	tmp := filepath.Join(dir, TempName())
	if rec != nil {
		defer rec.Record(filepath.Join(root.Name(), tmp))()
	}
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
	if err != nil {
		return fmt.Errorf("cannot create a temporary file: %w", Bare(err))
	}
	step := "setting the mode"
	if perm != 0 {
		err = f.Chmod(perm)
	}
	if err == nil {
		step = "writing"
		_, err = f.Write(data)
	}
	if err == nil {
		step, err = "syncing", f.Sync()
	}
	if cerr := f.Close(); err == nil {
		step, err = "closing", cerr
	}
	if err == nil {
		step, err = "replacing the file", root.Rename(tmp, rel)
	}
	if err != nil {
		root.Remove(tmp)
		return fmt.Errorf("%s: %w", step, Bare(err))
	}
	if d, err := root.Open(dir); err == nil {
		_ = d.Sync() // best effort: some file systems cannot sync a directory
		d.Close()
	}
	Sometimes(filepath.Join(root.Name(), dir), func() int { return SweepInRoot(root, dir) })
	return nil
}

// Bare drops the *PathError or *LinkError wrapper of err, whose path is
// root-relative and would only confuse; callers name the file themselves.
func Bare(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}
