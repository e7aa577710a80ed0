package searchindex

import (
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/indusagi/induscode/internal/searchindex/build"
	"github.com/indusagi/induscode/internal/searchindex/indexfile"
	"github.com/indusagi/induscode/internal/searchindex/trigram"
)

// The deck's own changes (write, edit) reach the index in the same call:
// Refresh reads the changed files again and keeps their trigrams beside
// the index file, in memory, so that a changed file stays one grep can
// pass over instead of one it must scan until the next build. An entry
// vouches for its file on the same terms as the index file's: the stamp
// it was read with is the file's now, and the file was not changed within
// racyWindow of the read.

// maxFresh bounds the files held in memory; beyond it a changed file is
// scanned, as any file the index cannot vouch for.
const maxFresh = 4096

// fresh is one file read again since the build.
type fresh struct {
	stamp  indexfile.Stamp
	readAt int64    // wall clock (unix ns) before the file was stamped
	tris   []uint32 // distinct, ascending; none for a binary file
}

// freshSet holds the files refreshed since the index file was read.
type freshSet struct {
	mu    sync.Mutex
	files map[string]*fresh // by path relative to the root, with '/'
	x     build.Extractor   // under mu
}

// Refresh reads the files at paths (absolute, or relative to the root)
// again, so that grep can pass over them by their new content. A path
// outside the workspace, gone, too large or not a regular file is
// forgotten: grep scans it, as it scans any file the index does not
// know.
func (x *Index) Refresh(paths ...string) {
	if !indexfile.Supported {
		return
	}
	fs := &x.fresh
	fs.mu.Lock()
	defer fs.mu.Unlock()
	for _, p := range paths {
		if !filepath.IsAbs(p) {
			p = filepath.Join(x.root, p)
		}
		rel, ok := x.rel(filepath.Clean(p))
		if !ok {
			continue
		}
		delete(fs.files, rel)
		at := time.Now().UnixNano()
		data, s, ok := build.ReadFile(p, &fs.x.Buf)
		if !ok || len(fs.files) >= maxFresh {
			continue
		}
		var tris []uint32
		if !build.IsBinary(data) {
			tris = slices.Clone(fs.x.Distinct(data))
			slices.Sort(tris)
		}
		if fs.files == nil {
			fs.files = map[string]*fresh{}
		}
		fs.files[rel] = &fresh{stamp: s, readAt: at, tris: tris}
	}
	if cap(fs.x.Buf) > 1<<20 {
		fs.x.Buf = nil // a large file's buffer is not kept
	}
}

// rel returns the path of abs relative to the root, with '/'.
func (x *Index) rel(abs string) (string, bool) {
	rel, ok := strings.CutPrefix(abs, x.root+string(filepath.Separator))
	if !ok || rel == "" {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// freshFor returns the refreshed entry of rel (at path) when it vouches
// for the file; known is false when rel was not refreshed. An entry read
// too soon after its file's change to vouch for it is read again once
// that change is far enough behind.
func (x *Index) freshFor(rel, path string) (f *fresh, known bool) {
	fs := &x.fresh
	fs.mu.Lock()
	f = fs.files[rel]
	fs.mu.Unlock()
	if f == nil {
		return nil, false
	}
	if f.vouches(path) {
		return f, true
	}
	if now, ok := indexfile.PathStamp(path); ok && now == f.stamp && f.settled() {
		x.Refresh(path)
		fs.mu.Lock()
		f = fs.files[rel]
		fs.mu.Unlock()
		if f != nil && f.vouches(path) {
			return f, true
		}
	}
	return nil, true
}

// forgetBefore drops the entries read before a build that began at
// built: the index file knows those files at least as well.
func (x *Index) forgetBefore(built int64) {
	fs := &x.fresh
	fs.mu.Lock()
	defer fs.mu.Unlock()
	for rel, f := range fs.files {
		if f.readAt < built {
			delete(fs.files, rel)
		}
	}
}

// vouches reports whether entry f still describes the file at path:
// its stamp is the file's, and the file did not change too close to the
// read to tell.
func (f *fresh) vouches(path string) bool {
	limit := f.readAt - int64(indexfile.RacyWindow())
	if f.stamp.Mtime >= limit || f.stamp.Ctime >= limit {
		return false
	}
	now, ok := indexfile.PathStamp(path)
	return ok && now == f.stamp
}

// settled reports whether the file's last change recorded in f is now
// more than racyWindow in the past, so that a read now would vouch.
func (f *fresh) settled() bool {
	limit := time.Now().UnixNano() - 2*int64(indexfile.RacyWindow())
	return f.stamp.Mtime < limit && f.stamp.Ctime < limit
}

// mayMatch reports whether a file with the trigrams f holds may
// satisfy q.
func (f *fresh) mayMatch(q *trigram.Query) bool {
	switch q.Op {
	case trigram.All:
		return true
	case trigram.None:
		return false
	}
	and := q.Op == trigram.And
	for _, t := range q.Tris {
		if _, has := slices.BinarySearch(f.tris, t); has != and {
			return has
		}
	}
	for _, sub := range q.Subs {
		if m := f.mayMatch(sub); m != and {
			return m
		}
	}
	return and
}
