package tool

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ErrOutsideWorkspace is returned (wrapped) when a path that is to be
// written lies outside every workspace root.
var ErrOutsideWorkspace = errors.New("path is outside the workspace")

// Resolve turns a model-supplied path into an absolute, clean path: a
// leading '@' (a mention, as in "@src/main.go") is dropped, '~' and '~/'
// expand to the home directory, and a relative path joins env.Dir.
func (e *Env) Resolve(p string) (string, error) { return ResolveIn(e.Dir, p) }

// ResolveIn is [Env.Resolve] for a session whose directory is dir, for
// those that must show a path as the tools will take it (the hooks).
func ResolveIn(dir, p string) (string, error) {
	p = strings.TrimSpace(p)
	p = strings.TrimPrefix(p, "@")
	if p == "" {
		return "", errors.New("path is empty")
	}
	if strings.IndexByte(p, 0) >= 0 {
		return "", errors.New("path contains a NUL byte")
	}
	if p == "~" || strings.HasPrefix(p, "~/") {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("cannot expand ~: %w", err)
		}
		p = filepath.Join(home, p[1:])
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	return filepath.Clean(p), nil
}

// Rel returns abs relative to env.Dir when it lies inside it, and abs
// itself otherwise; tools use it to show paths the way the user sees them.
func (e *Env) Rel(abs string) string {
	rel, err := filepath.Rel(e.Dir, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return abs
	}
	return rel
}

// WorkspaceRoot finds the workspace root that lexically contains abs and
// returns it with abs relative to it. It does not look at the disk: open
// the file through os.OpenRoot(root) with the returned rel path so that a
// symlink leading out of the workspace is refused as well.
func (e *Env) WorkspaceRoot(abs string) (root, rel string, err error) {
	abs = filepath.Clean(abs)
	for _, r := range e.Roots {
		rel, err := filepath.Rel(r, abs)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue
		}
		return r, rel, nil
	}
	return "", "", fmt.Errorf("%w: %s is not under %s; only files inside the workspace can be changed",
		ErrOutsideWorkspace, abs, strings.Join(e.Roots, ", "))
}
