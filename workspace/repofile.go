package workspace

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// A repository also holds files indusr reads as configuration: MCP
// configs, Claude Code's settings, AGENTS.md and CLAUDE.md, agent
// profiles, addon manifests. Whoever wrote the repository chose what they
// are, so a config can be a link to /dev/zero, a named pipe that never
// answers, a link to a file of the user's elsewhere, or a sparse file of
// many gigabytes. [ReadRepoFile] is the one way such a file is read: it
// opens the file beneath the workspace (links followed only while they
// stay inside), without waiting on a pipe, accepts only a regular file,
// and reads no more than a bound the caller names.

// Bounds on files read from a repository. They are far above what a hand-
// written file of each kind holds and far below what would hurt a session
// to keep in memory.
const (
	// MaxConfigFile bounds a config of a repository (.mcp.json,
	// .claude/settings.json, an addon's manifest, an agent profile).
	MaxConfigFile = 1 << 20
	// MaxBriefingFile bounds AGENTS.md or CLAUDE.md, which every turn of
	// a conversation carries.
	MaxBriefingFile = 256 << 10
)

// ErrRefused is the error, under [*RefusedError], of a repository file
// that is not read.
var ErrRefused = errors.New("repository file refused")

// RefusedError names a file of a repository that is not read, and why.
type RefusedError struct {
	Path   string // the file
	Reason string // "it is a named pipe", "it is a link that leads out of the workspace"...
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("not reading %s: %s; indusr reads a repository's files only when they are regular files "+
		"inside the workspace, of a reasonable size", e.Path, e.Reason)
}

func (e *RefusedError) Unwrap() error { return ErrRefused }

// ReadRepoFile reads the file at path, which belongs to the workspace at
// root, and returns at most limit bytes of it.
//
// A path inside root is opened beneath root: a link is followed while it
// stays inside and refused when it leads out (to /dev/zero, to the user's
// files). A path under the state folder goes through the state folder's
// own funnel ([OpenFile]). With root "" (or a path outside root) the file
// is the user's own, such as ~/.claude/settings.json, and its links are
// the user's choice; it is still refused unless it is a regular file of
// at most limit bytes. A named pipe is never waited on.
//
// A missing file is an error for which errors.Is(err, fs.ErrNotExist)
// holds; a refused one is a [*RefusedError].
func ReadRepoFile(root, path string, limit int64) ([]byte, error) {
	if root != "" {
		if !filepath.IsAbs(path) {
			path = filepath.Join(root, path)
		}
		if abs, err := filepath.Abs(root); err == nil {
			root = abs
		}
	}
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	f, err := openRepoFile(root, path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &RefusedError{Path: path, Reason: "it is " + fileKind(fi.Mode())}
	}
	if fi.Size() > limit {
		return nil, tooLarge(path, fi.Size(), limit)
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: path, Err: err}
	}
	if int64(len(b)) > limit { // it grew after the stat, or reports no size
		return nil, tooLarge(path, int64(len(b)), limit)
	}
	return b, nil
}

func tooLarge(path string, size, limit int64) error {
	return &RefusedError{Path: path, Reason: fmt.Sprintf("it holds more than %d bytes (%d), more than a file of its kind is read", limit, size)}
}

// openRepoFile opens path for reading without waiting on a pipe; see
// ReadRepoFile for which links are followed.
func openRepoFile(root, path string) (*os.File, error) {
	if _, _, ok := beneath(path); ok {
		f, err := OpenFile(path, os.O_RDONLY, 0)
		var unsafe *UnsafeError
		if errors.As(err, &unsafe) {
			return nil, &RefusedError{Path: path, Reason: "it is " + unsafe.Reason}
		}
		return f, err
	}
	rel, inside := insideRoot(root, path)
	if !inside {
		return os.OpenFile(path, os.O_RDONLY|nonBlock, 0)
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	f, err := r.OpenFile(rel, os.O_RDONLY|nonBlock, 0)
	switch {
	case err == nil:
		return f, nil
	case errors.Is(err, fs.ErrNotExist):
		return nil, &fs.PathError{Op: "open", Path: path, Err: fs.ErrNotExist}
	case errors.Is(err, fs.ErrPermission):
		return nil, &fs.PathError{Op: "open", Path: path, Err: fs.ErrPermission}
	}
	if linkOnTheWay(root, rel) {
		return nil, &RefusedError{Path: path, Reason: "it is (or lies under) a link that leads out of the workspace " + root}
	}
	return nil, &RefusedError{Path: path, Reason: "it cannot be opened inside the workspace (" + errors.Unwrap(err).Error() + ")"}
}

// insideRoot is path relative to root when it lies (as written) inside it.
func insideRoot(root, path string) (string, bool) {
	if root == "" {
		return "", false
	}
	rel, err := filepath.Rel(filepath.Clean(root), path)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return rel, true
}

// linkOnTheWay reports whether rel, or a folder on the way to it, is a
// symlink: why os.Root refused it.
func linkOnTheWay(root, rel string) bool {
	at := root
	for _, name := range strings.Split(rel, string(filepath.Separator)) {
		at = filepath.Join(at, name)
		fi, err := os.Lstat(at)
		if err != nil {
			return false
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return true
		}
	}
	return false
}

// fileKind names what stands where a regular file was expected.
func fileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0, m&fs.ModeCharDevice != 0:
		return "a device"
	case m&fs.ModeSymlink != 0:
		return "a symlink"
	}
	return "not a regular file"
}
