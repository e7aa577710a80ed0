package searchindex

import (
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/indusagi/induscode/internal/searchindex/indexfile"
	"github.com/indusagi/induscode/internal/searchindex/trigram"
	"github.com/indusagi/induscode/workspace"
)

// Index is the search index of one workspace as grep consults it. It
// reads the index file when it changes and is safe for concurrent use.
// An Index never builds; Build does, and a host decides when.
type Index struct {
	root string // absolute workspace root
	path string // the index file

	mu   sync.Mutex
	snap *snapshot
	key  indexfile.Stamp // of the index file snap was read from
	bad  error           // why the file on disk was refused

	fresh freshSet // files the deck changed since, read again

	listStats atomic.Int64 // files List has stat-ed, for tests
}

// snapshot is one index file, mapped. Its tables are views of the
// mapping, which is released once the snapshot is unreachable: a method
// that hands on a view keeps s alive until the view is done with.
type snapshot struct {
	mem     []byte // the whole file
	h       indexfile.Header
	files   indexfile.Table
	order   []uint32
	watched indexfile.Table // the folders and ignore files the build read: see package build
	dir     *indexfile.LookupDir

	mu      sync.Mutex
	checked map[int]bool // lookup blocks checked, by number
}

// entry returns trigram t's lookup entry.
func (s *snapshot) entry(t uint32) (indexfile.LookupEntry, bool, error) {
	k, ok := s.dir.Block(t)
	if !ok {
		return indexfile.LookupEntry{}, false, nil
	}
	b, err := s.block(k)
	if err != nil {
		return indexfile.LookupEntry{}, false, err
	}
	e, ok := indexfile.FindIn(b, t)
	return e, ok, nil
}

// block returns lookup block k, checking it the first time.
func (s *snapshot) block(k int) ([]byte, error) {
	n := min(indexfile.LookupBlock, int(s.h.NTris)-k*indexfile.LookupBlock)
	at := s.h.LookupAt() + int64(k)*indexfile.LookupBlock*indexfile.LookupSize
	b := s.mem[at : at+int64(n)*indexfile.LookupSize]
	s.mu.Lock()
	ok := s.checked[k]
	s.mu.Unlock()
	if ok {
		return b, nil
	}
	if err := indexfile.CheckBlock(s.h, s.dir, k, b); err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.checked[k] = true
	s.mu.Unlock()
	return b, nil
}

// postings returns the posting list of e, checked.
func (s *snapshot) postings(e indexfile.LookupEntry) ([]byte, error) {
	at := s.h.PostAt() + int64(e.Off)
	b := s.mem[at : at+int64(e.N)]
	if crc32.Checksum(b, indexfile.Castagnoli()) != e.CRC {
		return nil, indexfile.Corrupt("posting list checksum mismatch")
	}
	return b, nil
}

// Open returns the index of the workspace at root (nothing is read yet).
func Open(root string) *Index {
	abs, err := filepath.Abs(root)
	if err != nil {
		abs = filepath.Clean(root)
	}
	return &Index{root: abs, path: filepath.Join(workspace.At(abs).SearchIndex(), indexfile.FileName)}
}

// Root is the workspace the index covers.
func (x *Index) Root() string { return x.root }

// load returns the current snapshot, reading the file again when it was
// replaced; nil when there is none or it was refused (x.bad says why).
func (x *Index) load() *snapshot {
	if !indexfile.Supported {
		return nil
	}
	fi, err := workspace.Lstat(x.path)
	x.mu.Lock()
	defer x.mu.Unlock()
	if err != nil {
		x.snap, x.key, x.bad = nil, indexfile.Stamp{}, nil
		if !errors.Is(err, fs.ErrNotExist) {
			x.bad = err
		}
		return nil
	}
	if k, ok := indexfile.StatStamp(fi); ok && k == x.key && (x.snap != nil || x.bad != nil) {
		return x.snap
	}
	x.snap, x.bad = nil, nil
	f, err := workspace.Open(x.path)
	if err != nil {
		x.bad = err
		return nil
	}
	s, k, err := readSnapshot(f)
	f.Close()
	if err != nil {
		x.bad, x.key = err, k
		return nil
	}
	x.snap, x.key = s, k
	x.forgetBefore(s.h.Built)
	return s
}

// readSnapshot maps the index file f and checks its header and file
// table. f may be closed once it returns.
func readSnapshot(f *os.File) (*snapshot, indexfile.Stamp, error) {
	k, ok := indexfile.FileStamp(f)
	if !ok {
		return nil, k, indexfile.Corrupt("not a regular file")
	}
	hb := make([]byte, indexfile.HeaderSize)
	if _, err := f.ReadAt(hb, 0); err != nil {
		return nil, k, indexfile.Corrupt("short header: %v", err)
	}
	h, err := indexfile.DecodeHeader(hb, k.Size)
	if err != nil {
		return nil, k, err
	}
	// A build writes every byte; a file with holes was made otherwise,
	// and reading one costs pages of zeros for the bytes it claims.
	if indexfile.Sparse(f, k.Size) {
		return nil, k, indexfile.Corrupt("the index file has holes")
	}
	mem, release, err := indexfile.MapFile(f, int(h.Total()))
	if err != nil {
		return nil, k, fmt.Errorf("reading the search index: %w", err)
	}
	files, watched, order, dir, err := openMapped(h, mem)
	if err != nil {
		release()
		return nil, k, err
	}
	s := &snapshot{mem: mem, h: h, files: files, order: order, watched: watched, dir: dir,
		checked: map[int]bool{}}
	runtime.AddCleanup(s, func(release func()) { release() }, release)
	return s, k, nil
}

// openMapped is openMeta of the mapped file mem under a guard of its own
// (see survive): no snapshot holds mem yet, so a fault while it is
// checked is only an error.
func openMapped(h indexfile.Header, mem []byte) (files, watched indexfile.Table, order []uint32, dir *indexfile.LookupDir, err error) {
	defer func(was bool) {
		debug.SetPanicOnFault(was)
		if r := recover(); r != nil {
			if !(&snapshot{mem: mem}).maps(faultAddr(r)) {
				panic(r)
			}
			err = errCutShort
		}
	}(debug.SetPanicOnFault(true))
	return indexfile.OpenMeta(h, mem[indexfile.HeaderSize:indexfile.HeaderSize+h.MetaLen])
}

// Narrow plans the regular expression expr (as package linematch compiled
// it) against the index and returns skip, which reports true only for a
// file (by absolute path) that the index proves holds no match: it is in
// the table, unchanged since it was indexed (size, times, inode, device),
// not changed too close to the build to tell, and lacks the trigrams
// every match needs. skip is nil when the index cannot narrow the search
// (no index, a refused one, or a pattern without usable trigrams); grep
// then scans every file.
func (x *Index) Narrow(expr string) (skip func(path string) bool) {
	return x.narrow(expr, nil)
}

// narrow is Narrow; stale, when set, is called for each file the index
// could not vouch for (not in the table, or changed since).
func (x *Index) narrow(expr string, stale func()) func(path string) bool {
	q := trigram.Plan(expr)
	if q.Op == trigram.All {
		return nil
	}
	s := x.load()
	if s == nil {
		return nil
	}
	cand, err := x.eval(s, q)
	if err != nil {
		x.refuse(s, err)
		return nil
	}
	return func(path string) (skip bool) {
		defer x.survive(s, debug.SetPanicOnFault(true), nil) // skip stays false
		rel, ok := x.rel(path)
		if !ok {
			return false
		}
		if f, known := x.freshFor(rel, path); known {
			if f == nil {
				if stale != nil {
					stale()
				}
				return false
			}
			return !f.mayMatch(q)
		}
		id, ok := s.lookup(rel)
		if ok && (cand.has(id) || s.files.Stamp(id).Size == indexfile.Unindexed) {
			return false
		}
		if ok && s.trusted(id, path) {
			return true
		}
		if stale != nil {
			stale()
		}
		return false
	}
}

// lookup finds a file's id by its relative path.
func (s *snapshot) lookup(rel string) (uint32, bool) {
	i, ok := slices.BinarySearchFunc(s.order, rel, func(id uint32, p string) int {
		return strings.Compare(s.files.Path(id), p)
	})
	if !ok {
		return 0, false
	}
	return s.order[i], true
}

// isWatched reports whether rel is one of the paths the build's walk
// read (a folder or an ignore file).
func (s *snapshot) isWatched(rel string) bool {
	n := s.watched.Len()
	i := sort.Search(n, func(i int) bool { return s.watched.Path(uint32(i)) >= rel })
	return i < n && s.watched.Path(uint32(i)) == rel
}

// trusted reports whether the file at path is what entry id recorded.
func (s *snapshot) trusted(id uint32, path string) bool {
	was := s.files.Stamp(id)
	if s.racy(was) {
		return false // changed too close to the build to tell
	}
	now, ok := indexfile.PathStamp(path)
	return ok && now == was
}

// bitmap is a set of file ids.
type bitmap []uint64

func newBitmap(n uint32) bitmap     { return make(bitmap, (n+63)/64) }
func (b bitmap) has(id uint32) bool { return b[id/64]&(1<<(id%64)) != 0 }
func (b bitmap) set(id uint32)      { b[id/64] |= 1 << (id % 64) }
func (b bitmap) and(o bitmap) {
	for i := range b {
		b[i] &= o[i]
	}
}
func (b bitmap) or(o bitmap) {
	for i := range b {
		b[i] |= o[i]
	}
}
func (b bitmap) fill(n uint32) bitmap {
	for i := range b {
		b[i] = ^uint64(0)
	}
	if r := n % 64; r != 0 {
		b[len(b)-1] = 1<<r - 1
	}
	return b
}

// eval is s.eval, reading s's mapping under survive.
func (x *Index) eval(s *snapshot, q *trigram.Query) (cand bitmap, err error) {
	defer x.survive(s, debug.SetPanicOnFault(true), func(e error) { cand, err = nil, e })
	return s.eval(q)
}

// eval returns the files that may satisfy q.
func (s *snapshot) eval(q *trigram.Query) (bitmap, error) {
	cache := map[uint32]bitmap{}
	list := func(t uint32) (bitmap, error) {
		if b, ok := cache[t]; ok {
			return b, nil
		}
		b := newBitmap(s.h.NFiles)
		e, ok, err := s.entry(t)
		if err != nil {
			return nil, err
		}
		if ok {
			data, err := s.postings(e)
			if err != nil {
				return nil, err
			}
			if err := indexfile.DecodePostings(data, s.h.NFiles, b.set); err != nil {
				return nil, err
			}
		}
		cache[t] = b
		return b, nil
	}
	var walk func(q *trigram.Query) (bitmap, error)
	walk = func(q *trigram.Query) (bitmap, error) {
		out := newBitmap(s.h.NFiles)
		switch q.Op {
		case trigram.All:
			return out.fill(s.h.NFiles), nil
		case trigram.None:
			return out, nil
		case trigram.And:
			out.fill(s.h.NFiles)
		}
		for _, t := range q.Tris {
			b, err := list(t)
			if err != nil {
				return nil, err
			}
			if q.Op == trigram.And {
				out.and(b)
			} else {
				out.or(b)
			}
		}
		for _, sub := range q.Subs {
			b, err := walk(sub)
			if err != nil {
				return nil, err
			}
			if q.Op == trigram.And {
				out.and(b)
			} else {
				out.or(b)
			}
		}
		return out, nil
	}
	return walk(q)
}

// Status is what `indusr index status` shows.
type Status struct {
	Path    string    // the index file
	Exists  bool      // an index file is there
	Problem string    // why it is not used, when it is refused
	Size    int64     // bytes of the index file
	Files   int       // files in the table
	Bytes   int64     // their bytes when indexed
	Built   time.Time // when its build began
	Dirty   int       // files in the table changed since (grep scans them)
}

// Status reads the index file and checks each entry against its file.
func (x *Index) Status() (st Status) {
	st = Status{Path: x.path}
	s := x.load()
	x.mu.Lock()
	bad, key := x.bad, x.key
	x.mu.Unlock()
	if bad != nil {
		st.Exists, st.Problem = true, bad.Error()
		return st
	}
	if s == nil {
		if !indexfile.Supported {
			st.Problem = "the search index is only used on Linux"
		}
		return st
	}
	defer x.survive(s, debug.SetPanicOnFault(true), func(e error) { st = Status{Path: x.path, Exists: true, Problem: e.Error()} })
	st.Exists, st.Size, st.Files = true, key.Size, s.files.Len()
	st.Built = time.Unix(0, s.h.Built).Add(indexfile.RacyWindow())
	for id := range uint32(s.files.Len()) {
		e := s.files.Entry(id)
		if e.Stamp.Size == indexfile.Unindexed {
			st.Dirty++ // always scanned
			continue
		}
		st.Bytes += e.Stamp.Size
		path := filepath.Join(x.root, filepath.FromSlash(e.Path))
		if f, known := x.freshFor(e.Path, path); known && f != nil {
			continue
		}
		if !s.trusted(id, path) {
			st.Dirty++
		}
	}
	runtime.KeepAlive(s)
	return st
}

// Drop removes the index file; grep scans until the next build.
func (x *Index) Drop() error {
	err := workspace.Remove(x.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("removing the search index: %w", err)
	}
	return nil
}
