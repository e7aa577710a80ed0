package skills

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// MaxFile bounds a SKILL.md. The format recommends instructions under
// 5,000 tokens (some 20 KB); 256 KiB leaves room for long ones while a
// planted file (a sparse giant, /dev/zero behind a link) cannot fill
// memory.
const MaxFile = 256 << 10

// reader opens a location's files: beneath the repository for a project
// folder (links followed only while they stay inside it), as they are
// for the user's own. Only regular files are read, without waiting on a
// named pipe, and only up to MaxFile bytes.
//
// It is this package's own small reader; the workspace package has no
// bounded reader of repository files yet.
type reader struct {
	repo string
	root *os.Root // nil for the user's folders, or when repo cannot be opened
	err  error
}

func newReader(repo string) *reader {
	r := &reader{repo: repo}
	if repo != "" {
		r.root, r.err = os.OpenRoot(repo)
	}
	return r
}

func (r *reader) close() {
	if r.root != nil {
		r.root.Close()
	}
}

// rel is path relative to the repository.
func (r *reader) rel(path string) (string, error) {
	if r.err != nil {
		return "", r.err
	}
	rel, err := filepath.Rel(r.repo, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("%s lies outside the repository %s", path, r.repo)
	}
	return rel, nil
}

func (r *reader) open(path string, flag int) (*os.File, error) {
	if r.repo == "" {
		return os.OpenFile(path, flag, 0)
	}
	rel, err := r.rel(path)
	if err != nil {
		return nil, err
	}
	f, err := r.root.OpenFile(rel, flag, 0)
	return f, r.explain(path, err)
}

// explain turns os.Root's refusal into the reason a person needs.
func (r *reader) explain(path string, err error) error {
	if err == nil || errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
		return err
	}
	var pe *fs.PathError
	if errors.As(err, &pe) && strings.Contains(pe.Err.Error(), "escapes") {
		return &refused{path, "a link on the way leads out of the repository " + r.repo}
	}
	return err
}

func (r *reader) stat(path string) (fs.FileInfo, error) {
	if r.repo == "" {
		return os.Stat(path)
	}
	rel, err := r.rel(path)
	if err != nil {
		return nil, err
	}
	fi, err := r.root.Stat(rel)
	return fi, r.explain(path, err)
}

func (r *reader) readDir(path string) ([]fs.DirEntry, error) {
	f, err := r.open(path, os.O_RDONLY|syscall.O_DIRECTORY)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	entries, err := f.ReadDir(maxEntries + 1)
	if err != nil && err != io.EOF {
		return nil, err
	}
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, nil
}

// readFile reads the regular file at path, at most MaxFile bytes.
func (r *reader) readFile(path string) ([]byte, error) {
	f, err := r.open(path, os.O_RDONLY|syscall.O_NONBLOCK)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &refused{path, "it is not a regular file (" + fi.Mode().Type().String() + ")"}
	}
	if fi.Size() > MaxFile {
		return nil, &refused{path, fmt.Sprintf("it holds %d bytes, more than the %d a SKILL.md may", fi.Size(), MaxFile)}
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxFile+1))
	if err != nil {
		return nil, err
	}
	if len(b) > MaxFile {
		return nil, &refused{path, fmt.Sprintf("it holds more than the %d bytes a SKILL.md may", MaxFile)}
	}
	return b, nil
}

// refused is a file not read, and why.
type refused struct{ path, why string }

func (e *refused) Error() string { return e.path + ": " + e.why }

// reason is what a problem says of err: the refusal's reason, or the
// error without the path the problem already names.
func reason(err error) string {
	var rf *refused
	if errors.As(err, &rf) {
		return rf.why
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
