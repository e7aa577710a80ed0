package workspace

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/indusagi/induscode/internal/atomicfile"
)

// The state folder sits in a repository that anyone may have written: a
// clone can hold a .indusvx that is a symlink, or links, named pipes and
// files of another user inside it. Every path under a state folder is
// therefore opened here, one folder at a time from the state folder down,
// with no symlink followed (O_NOFOLLOW at each step, so nothing can lead
// outside), and every step is checked to be a folder or regular file of
// the user running us. Anything else is refused with an [*UnsafeError];
// nothing falls back to following the link.
//
// The functions below mirror their namesakes in package os and take the
// same absolute paths (those a [Layout] spells). A path with no state
// folder on it is not ours to judge (a folder a test or a library user
// chose) and goes to package os unchanged.

// ErrUnsafe is the error, under [*UnsafeError], of a state path refused.
var ErrUnsafe = errors.New("unsafe entry in the state folder")

// UnsafeError names an entry of the state folder that is refused and why.
type UnsafeError struct {
	Path   string // the entry refused
	Reason string // what it is: "a symlink", "a named pipe", "owned by uid 0"...
}

func (e *UnsafeError) Error() string {
	return fmt.Sprintf("refusing %s: it is %s, and induscode keeps its state only in plain folders and files of yours; "+
		"remove it (rm -r %q; it holds nothing induscode cannot rebuild) and run again", e.Path, e.Reason, e.Path)
}

func (e *UnsafeError) Unwrap() error { return ErrUnsafe }

// beneath splits path into its state folder and the names below it; ok is
// false when no state folder is on the path.
func beneath(path string) (state string, names []string, ok bool) {
	path = filepath.Clean(path)
	if !filepath.IsAbs(path) {
		abs, err := filepath.Abs(path)
		if err != nil {
			return "", nil, false
		}
		path = abs
	}
	state, ok = stateAncestor(path)
	if !ok {
		return "", nil, false
	}
	rel, err := filepath.Rel(state, path)
	if err != nil || rel == "." {
		return state, nil, err == nil
	}
	return state, strings.Split(rel, string(filepath.Separator)), true
}

// Files is the funnel as a value, for packages that take their file
// operations as a parameter (see internal/flock).
type Files struct{}

// MkdirAll is [MkdirAll].
func (Files) MkdirAll(path string, perm fs.FileMode) error { return MkdirAll(path, perm) }

// OpenFile is [OpenFile].
func (Files) OpenFile(path string, flag int, perm fs.FileMode) (*os.File, error) {
	return OpenFile(path, flag, perm)
}

// ReadFile reads the regular file at path; see [OpenFile].
func ReadFile(path string) ([]byte, error) {
	f, err := OpenFile(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// Open opens the regular file at path for reading; see [OpenFile].
func Open(path string) (*os.File, error) { return OpenFile(path, os.O_RDONLY, 0) }

// SweepSometimes is [Sweep] of dir unless this process swept it lately:
// the cheap call to make on every write.
func SweepSometimes(dir string) { atomicfile.Sometimes(dir, func() int { return Sweep(dir) }) }
