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

	"github.com/indusagi/induscode/workspace"
)

// MaxFile bounds a SKILL.md. The format recommends instructions under
// 5,000 tokens (some 20 KB); 256 KiB leaves room for long ones while a
// planted file (a sparse giant, /dev/zero behind a link) cannot fill
// memory.
const MaxFile = 256 << 10

// reader opens a location's files: beneath the repository for a project
// folder (links followed only while they stay inside it), as they are
// for the user's own. Files are read by workspace.ReadRepoFile: regular
// files only, without waiting on a named pipe, up to MaxFile bytes; the
// folders are listed here, beneath the repository the same way.
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
		return &refused{path, "it is (or lies under) a link that leads out of the workspace " + r.repo}
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
	f, err := r.open(path, os.O_RDONLY|openDirectory)
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

// readFile reads the regular file at path, at most MaxFile bytes,
// through the workspace's reader of repository files.
func (r *reader) readFile(path string) ([]byte, error) {
	return workspace.ReadRepoFile(r.repo, path, MaxFile)
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
	var wr *workspace.RefusedError
	if errors.As(err, &wr) {
		return wr.Reason
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
