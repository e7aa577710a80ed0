package walk

import (
	"strings"
	"sync/atomic"
)

// File is a regular file a walk admits. A walk with Config.ByName keeps
// the directory that holds the file open until the file is used, so that
// opening it (OpenFD) or reading its times (ModTime) looks up one name in
// that directory instead of every component of the path again; the kernel's
// path walk is a large share of a search over many small files. Each File
// such a walk hands out must be used once (OpenFD, ModTime) or released
// (Release); a File from any other walk, or from FileAt, holds nothing.
type File struct {
	// Path is the file's absolute path.
	Path string
	name string   // base name, a suffix of Path
	dir  *openDir // the holding directory kept open, or nil
	// walked: the file was listed by a walk, so a symlink put in its
	// place since must not be followed.
	walked bool
}

// FileAt is the File of an explicit path (grep of one file): it is opened
// by its path, and a symlink there is followed, as a path the user names
// should be.
func FileAt(path string) File { return File{Path: path} }

// Release gives up f's hold on its directory without using f. It may be
// called more than once only on a File that holds nothing; the methods
// that use f release it themselves.
func (f File) Release() { f.dir.release() }

// openDir is a directory the walk keeps open for the files it listed;
// refs counts those files not yet used or released.
type openDir struct {
	fd     int
	refs   atomic.Int32
	budget *dirBudget
}

func (d *openDir) release() {
	if d != nil && d.refs.Add(-1) == 0 {
		closeFD(d.fd)
		d.budget.open.Add(-1)
	}
}

// hold gives each file among kids a hold on d, and closes d if none
// needs it; d may be nil.
func (d *openDir) hold(kids []walkItem) {
	if d == nil {
		return
	}
	n := int32(0)
	for i := range kids {
		if !kids[i].dir {
			kids[i].odir = d
			n++
		}
	}
	// One hold more than the files while they are handed out, dropped
	// here, so that d closes exactly once whether or not it has files.
	d.refs.Add(n + 1)
	d.release()
}

// dirBudget bounds how many directories one walk keeps open at a time;
// past it, files are opened by their whole path, so a walk cannot run the
// process out of descriptors however its consumer lags.
type dirBudget struct{ open atomic.Int32 }

// maxOpenDirs is the bound of a dirBudget: far more directories than a
// search's reorder window spans, far fewer descriptors than any limit.
const maxOpenDirs = 256

// take reports whether one more directory may stay open; b may be nil
// (the walk keeps none).
func (b *dirBudget) take() bool {
	if b == nil {
		return false
	}
	if b.open.Add(1) > maxOpenDirs {
		b.open.Add(-1)
		return false
	}
	return true
}

// fileOf is the File of a listed item.
func fileOf(it walkItem) File {
	return File{Path: it.path, name: it.path[strings.LastIndexByte(it.path, '/')+1:], dir: it.odir, walked: true}
}

// ListedFile is the File of a path taken from a listing of the tree
// made earlier (a search index's file table): opened by its path, and,
// as for a walked file, a symlink put in its place is not followed.
func ListedFile(path string) File { return File{Path: path, walked: true} }
