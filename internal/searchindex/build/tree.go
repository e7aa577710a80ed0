package build

import (
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/indusagi/induscode/internal/searchindex/indexfile"
)

// A build also records what the walk's answer depends on besides the
// files, so that a search can take the file table for the walk: every
// directory the walk entered (a file created, removed or renamed in it
// moves its times) and every ignore file it read (.gitignore, .ignore,
// the repository's info/exclude), each stamped before the walk read it.
// When all of them are as recorded, the walk would list exactly the
// files of the table; otherwise grep walks.

// treeWatch collects them during a build; keep is the walk's Keep
// filter, called for each entry before a directory is listed.
type treeWatch struct {
	root     string
	mu       sync.Mutex
	watched  []indexfile.Entry
	complete bool // nothing seen that the stamps cannot vouch for
}

func newTreeWatch(root string) *treeWatch {
	w := &treeWatch{root: root, complete: !RepoAbove(root)}
	w.dir(".", root)
	git := filepath.Join(root, ".git")
	switch s, dir, ok := indexfile.LstatAny(git); {
	case ok && dir:
		// The repository itself (only that it is there counts: git
		// writes in it all the time), and the exclude file, or the
		// folder it would be created in.
		w.add(".git", git, false)
		w.add(".git/info", filepath.Join(git, "info"), true)
		w.add(".git/info/exclude", filepath.Join(git, "info", "exclude"), true)
	case ok || s != (indexfile.Stamp{}):
		w.complete = false // a worktree's .git file, or something odder
	}
	return w
}

// keep records a directory the walk will enter; files pass untouched.
func (w *treeWatch) keep(rel, _ string, isDir bool) bool {
	if isDir {
		abs := filepath.Join(w.root, filepath.FromSlash(rel))
		w.dir(rel, abs)
		if _, _, ok := indexfile.LstatAny(filepath.Join(abs, ".git")); ok {
			w.mu.Lock()
			w.complete = false // a nested repository: other rules apply
			w.mu.Unlock()
		}
	}
	return true
}

// dir stamps a directory and the ignore files in it.
func (w *treeWatch) dir(rel, abs string) {
	w.add(rel, abs, false)
	for _, name := range []string{".gitignore", ".ignore"} {
		w.add(rel+"/"+name, filepath.Join(abs, name), true)
	}
}

// add stamps one path; optional paths may be absent.
func (w *treeWatch) add(rel, abs string, optional bool) {
	s, _, ok := indexfile.LstatAny(abs)
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case ok:
		w.watched = append(w.watched, indexfile.Entry{Path: cleanRel(rel), Stamp: s})
	case !optional || s != (indexfile.Stamp{}):
		w.complete = false // unreadable, a link, or not a file or folder
	}
}

// finish returns the stamps and whether the table can stand in for the
// walk (walked: every directory could be listed).
func (w *treeWatch) finish(walked bool) ([]indexfile.Entry, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	// In path order, as the table's files: a search stamps them folder
	// by folder (stamper).
	slices.SortFunc(w.watched, func(a, b indexfile.Entry) int { return strings.Compare(a.Path, b.Path) })
	return w.watched, w.complete && walked
}

func cleanRel(rel string) string {
	if len(rel) > 2 && rel[:2] == "./" {
		return rel[2:]
	}
	return rel
}

// repoAbove reports whether a directory above root holds .git: the
// walk then applies ignore files from above the root, which the build
// does not record.
func RepoAbove(root string) bool {
	for d := filepath.Dir(root); ; d = filepath.Dir(d) {
		if _, _, ok := indexfile.LstatAny(filepath.Join(d, ".git")); ok {
			return true
		}
		if filepath.Dir(d) == d {
			return false
		}
	}
}
