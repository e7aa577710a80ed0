package approval

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Tree reads the files of one workspace for fingerprints. Every path is
// opened beneath the workspace's root: a link is followed only while it
// stays inside, and a path that leaves is recorded as leaving, never read.
type Tree struct {
	dir  string
	root *os.Root
}

// OpenTree opens the workspace at dir (an absolute path).
func OpenTree(dir string) (*Tree, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("opening the workspace %s: %w", dir, err)
	}
	return &Tree{dir: filepath.Clean(dir), root: root}, nil
}

// Close releases the workspace.
func (t *Tree) Close() error { return t.root.Close() }

// Dir is the workspace's root.
func (t *Tree) Dir() string { return t.dir }

// Rel is path relative to the workspace, with ok false when it lies
// outside it (written outside: links are not looked at here).
func (t *Tree) Rel(path string) (rel string, ok bool) {
	if !filepath.IsAbs(path) {
		path = filepath.Join(t.dir, path)
	}
	rel, err := filepath.Rel(t.dir, filepath.Clean(path))
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return rel, true
}

// Inside reports an error when path, a folder or file of the workspace,
// is a link (or lies under one) that leads out of it.
func (t *Tree) Inside(path string) error {
	rel, ok := t.Rel(path)
	if !ok {
		return fmt.Errorf("%s is outside the workspace %s", path, t.dir)
	}
	if _, err := t.root.Stat(rel); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s leads out of the workspace %s (%v)", path, t.dir, errors.Unwrap(err))
	}
	return nil
}

// MaxCovered bounds the files an approval reads to hash: far above any
// script or config a person writes and reviews, far below a planted sparse
// file of gigabytes that every check would read again.
const MaxCovered = 16 << 20

// TooLarge begins the hash of a file over MaxCovered: its content is not
// read, so an approval cannot vouch for it, and code covering it never
// counts as approved (see [Item.Unverifiable]).
const TooLarge = "too large to cover"

// Unverifiable reports whether the item stands for a file whose content
// could not be read to hash (too large), which no approval can cover.
func (it Item) Unverifiable() bool { return strings.Contains(it.Hash, TooLarge) }

// FileID names the item of a workspace file.
func FileID(rel string) string { return "file " + filepath.ToSlash(rel) }

// File is the item of the file at path; ok is false when path lies
// outside the workspace (the user's own files are not the repository's
// to change). A missing file is an item too, so creating it later is a
// change.
func (t *Tree) File(path string) (it Item, ok bool) {
	rel, ok := t.Rel(path)
	if !ok || rel == "." {
		return Item{}, false
	}
	return Item{ID: FileID(rel), Hash: t.hash(rel)}, true
}

// hash says what the file at rel is: its content's hash, or what stands
// in its place (absent, a folder, a link that leaves, a special file).
func (t *Tree) hash(rel string) string {
	fi, err := t.root.Lstat(rel)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "absent"
	case err != nil:
		return "unreadable: " + err.Error()
	}
	prefix := ""
	if fi.Mode()&fs.ModeSymlink != 0 {
		target, err := t.root.Readlink(rel)
		if err != nil {
			return "unreadable link: " + err.Error()
		}
		prefix = "link to " + target + ": "
		if fi, err = t.root.Stat(rel); err != nil {
			return prefix + "leads out of the workspace or nowhere"
		}
	}
	switch {
	case fi.IsDir():
		return prefix + "folder"
	case !fi.Mode().IsRegular():
		return prefix + "special file " + fi.Mode().Type().String()
	case fi.Size() > MaxCovered:
		return prefix + TooLarge + fmt.Sprintf(" (%d bytes)", fi.Size())
	}
	f, err := t.root.Open(rel)
	if err != nil {
		return prefix + "unreadable: " + err.Error()
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return prefix + "unreadable: " + err.Error()
	}
	return prefix + "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// Folder is the items of every file under the folder at path, links not
// followed into other folders. An error says the folder cannot be read or
// is not inside the workspace.
func (t *Tree) Folder(path string) ([]Item, error) {
	rel, ok := t.Rel(path)
	if !ok {
		return nil, fmt.Errorf("%s is outside the workspace %s", path, t.dir)
	}
	var items []Item
	err := fs.WalkDir(t.root.FS(), filepath.ToSlash(rel), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			items = append(items, Item{ID: FileID(p), Hash: t.hash(filepath.FromSlash(p))})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return items, nil
}
