package searchindex

import (
	"path"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/indusagi/induscode/internal/searchindex/build"
	"github.com/indusagi/induscode/internal/searchindex/indexfile"
	"github.com/indusagi/induscode/internal/searchindex/treewatch"
	"github.com/indusagi/induscode/internal/searchindex/trigram"
	"github.com/indusagi/induscode/internal/walk"
)

// List returns the files grep must search under root for the regular
// expression expr (as package linematch compiled it), in the byte order
// of their paths, taking the file table for the walk: the files the index
// cannot prove free of a match (candidates, files changed since the
// build, files whose content is not indexed), among those that admit
// (the type filter; nil admits all) keeps. ok is false when the table
// cannot stand in for the walk, or need not: a pattern without a usable
// trigram (every file is read, and the walk opens them more cheaply by
// their folder), no complete index, root not the
// workspace's, an ignore file of the table changed or added since the
// build, a new repository, or more new entries than a search reads (see
// settle). grep then walks.
//
// Every file is checked against its stamp as Narrow checks it. A folder
// whose entries changed (a file created, removed or renamed in it, as an
// editor's save through a temporary name does) is read again: a file of
// the table gone drops out, and a new file the walk would take is
// searched too, as are those of a new folder.
func (x *Index) List(root, expr string, admit func(rel, name string) bool) (paths []string, ok bool) {
	if trigram.Plan(expr).Op == trigram.All {
		return nil, false
	}
	return x.list(x.load(), root, expr, admit, listHooks{})
}

// listHooks let a Keeper take part in a listing.
type listHooks struct {
	// stale hears of each file of the table found changed.
	stale func(rel string)
	// clean, when set, vouches for the tree's shape and for each file
	// it reports true for, so that they need no stat: a watcher saw no
	// change to them.
	clean func(rel string) bool
	// extra are files outside the table to search too (relative, in
	// path order): the ones a watcher saw created since the build.
	extra []string
	// created hears of each new file the listing found in a folder
	// whose entries changed since the build (see settle), and watch of
	// each new folder before it is listed (see treewatch.NewFolder).
	created func(rel string)
	watch   func(dir string) bool
	// linked hears of each file the listing stamped that has other
	// names (hard links): writes through those reach no watch.
	linked func(rel string)
	// arming: a watcher set up before this listing will vouch for every
	// file it finds unchanged, so each file's stamp is checked, the
	// candidates' too (they are searched anyway), and each one changed
	// is reported to stale.
	arming bool
}

func (x *Index) list(s *snapshot, root, expr string, admit func(rel, name string) bool, hk listHooks) (paths []string, ok bool) {
	if root != x.root || s == nil || s.h.Flags&indexfile.FlagComplete == 0 {
		return nil, false
	}
	defer runtime.KeepAlive(s) // the paths are views of its mapping
	defer x.survive(s, debug.SetPanicOnFault(true), func(error) { paths, ok = nil, false })
	if build.RepoAbove(x.root) {
		return nil, false
	}
	stale := func(rel string) {
		if hk.stale != nil {
			hk.stale(rel)
		}
	}
	q := trigram.Plan(expr)
	var cand bitmap
	if q.Op != trigram.All {
		var err error
		if cand, err = s.eval(q); err != nil {
			x.refuse(s, err)
			return nil, false
		}
	}
	// Decide each file in path order, in parallel: most decisions are a
	// stat.
	ids := s.order
	if admit != nil {
		ids = make([]uint32, 0, len(s.order))
		for _, id := range s.order {
			if p := s.files.Path(id); admit(p, path.Base(p)) {
				ids = append(ids, id)
			}
		}
	}
	// The watched paths (unless a watcher vouches for them) are checked
	// in the same pass, merged into the files in path order, so that each
	// folder is opened once.
	var watched indexfile.Table
	if hk.clean == nil {
		watched = s.watched
	}
	// With no watched paths to check, the work is the files in order.
	var work []int32
	n := len(ids)
	if watched.Len() > 0 {
		work = mergeByPath(&watched, ids, &s.files)
		n = len(work)
	}
	search := make([]bool, len(ids))
	var refused, changed atomic.Bool
	var movedMu sync.Mutex
	var moved []string // folders whose entries changed: see settle
	x.fresh.mu.Lock()
	refreshed := len(x.fresh.files) > 0
	x.fresh.mu.Unlock()
	// Each worker reads the mapping too.
	guard := func(run func()) {
		defer x.survive(s, debug.SetPanicOnFault(true), func(error) { refused.Store(true) })
		run()
	}
	stamped := inParallel(x.root, n, guard, func(st *indexfile.Stamper, k int) {
		i := k
		if work != nil {
			i = int(work[k])
		}
		if i < 0 {
			w := watched.Entry(uint32(-i - 1))
			switch s.check(st, w) {
			case watchSame:
			case watchMoved:
				movedMu.Lock()
				moved = append(moved, strings.Clone(w.Path))
				movedMu.Unlock()
			default:
				changed.Store(true)
			}
			return
		}
		e := s.files.Entry(ids[i])
		must := cand == nil || cand.has(ids[i]) || e.Stamp.Size == indexfile.Unindexed
		// A candidate is searched anyway, unstamped, unless it is to be
		// stamped for a watch. Under a watch it is stamped too: a change
		// the watch missed (through a mapping, or another name of the
		// file) then makes it dirty for the searches that follow.
		if must && !hk.arming && hk.clean == nil {
			search[i] = true
			return
		}
		if refreshed {
			abs := filepath.Join(x.root, filepath.FromSlash(e.Path))
			// One it cannot vouch for (changed again, or removed) is
			// stamped below.
			if f, _ := x.freshFor(e.Path, abs); f != nil {
				search[i] = must || f.mayMatch(q)
				return
			}
		}
		if !must && hk.clean != nil && hk.clean(e.Path) && !s.racy(e.Stamp) {
			return
		}
		now, ok, gone := st.File(e.Path)
		if ok && st.Links > 1 && hk.linked != nil {
			hk.linked(strings.Clone(e.Path))
		}
		switch {
		case gone:
			// Removed: the walk would not find it either. Its folder
			// changed with it, and is settled below.
			search[i] = false
			stale(strings.Clone(e.Path))
		case !ok:
			refused.Store(true)
		case now == e.Stamp && !s.racy(e.Stamp):
			search[i] = must
		default:
			search[i] = true
			stale(strings.Clone(e.Path))
		}
	})
	x.listStats.Add(stamped)
	if refused.Load() || changed.Load() {
		return nil, false
	}
	extra := hk.extra
	var now *settled
	if len(moved) > 0 {
		if now = x.settle(s, moved, hk.watch); now == nil {
			return nil, false
		}
		for _, rel := range now.created {
			if hk.created != nil {
				hk.created(rel)
			}
		}
		extra = mergeSorted(extra, now.created)
	}
	add := func(rel string) { paths = append(paths, filepath.Join(x.root, filepath.FromSlash(rel))) }
	for i, id := range ids {
		if !search[i] {
			continue
		}
		rel := s.files.Path(id)
		if now != nil && now.gone(rel) {
			continue // a candidate, not stamped, removed since the build
		}
		for len(extra) > 0 && extra[0] < rel {
			if admit == nil || admit(extra[0], path.Base(extra[0])) {
				add(extra[0])
			}
			extra = extra[1:]
		}
		add(rel)
	}
	for _, rel := range extra {
		if admit == nil || admit(rel, path.Base(rel)) {
			add(rel)
		}
	}
	return paths, true
}

// watchState is what became of a watched path since the build.
type watchState int

const (
	watchSame    watchState = iota
	watchMoved              // a folder the walk enters, whose entries changed: see settle
	watchChanged            // anything else: the walk's rules or the tree's shape may differ
)

// check tells what became of the watched path w. A folder of the walk
// that is still a folder is only moved: names created, removed or renamed
// in it, which settle sorts out. An ignore file, anything under .git,
// or a path gone or of another kind is changed.
func (s *snapshot) check(st *indexfile.Stamper, w indexfile.Entry) watchState {
	now, dir, ok := st.Any(w.Path)
	switch {
	case w.Path == ".git" && ok && dir:
		return watchSame // the repository is still there; what git writes in it is not the walk's
	case ok && now == w.Stamp && !s.racy(w.Stamp):
		return watchSame
	case ok && dir && !rulesPath(w.Path):
		return watchMoved
	}
	return watchChanged
}

// rulesPath reports whether rel is where the walk's rules come from: an
// ignore file, a repository's folder or something in it.
func rulesPath(rel string) bool {
	base := path.Base(rel)
	return base == ".gitignore" || base == ".ignore" || base == ".git" ||
		rel == ".git" || strings.HasPrefix(rel, ".git/") || strings.Contains(rel, "/.git/")
}

// settled is what settle found in the folders whose entries changed
// since the build.
type settled struct {
	// names holds, for each such folder, the names in it now of the
	// table's files.
	names   map[string]map[string]bool
	created []string // new files the walk would take, in path order
}

// gone reports whether the table's file rel is no longer there: it is
// in a folder whose entries changed, and not among them.
func (t *settled) gone(rel string) bool {
	dir, name := ".", rel
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		dir, name = rel[:i], rel[i+1:]
	}
	names, moved := t.names[dir]
	return moved && !names[name]
}

// settle reads the folders whose entries changed since the build (listed
// in any order): the files of the table are either still there as files
// (the pass stamped them, but for the candidates) or gone, and a new
// file the walk would take is searched too, as are those of a new folder
// the walk would enter (see treewatch.NewFolder). It returns nil when a folder got
// something only a walk can follow: a new ignore file or repository, a
// file of the table turned into something else, or more new entries
// than a search should read.
func (x *Index) settle(s *snapshot, moved []string, watch func(dir string) bool) *settled {
	slices.Sort(moved)
	st := indexfile.NewStamper(x.root)
	defer st.Close()
	t := &settled{names: make(map[string]map[string]bool, len(moved))}
	budget := treewatch.MaxNewEntries
	for _, dir := range moved {
		entries, err := st.Entries(dir)
		if err != nil {
			return nil
		}
		names := make(map[string]bool)
		t.names[dir] = names
		for _, e := range entries {
			rel := e.Name()
			if dir != "." {
				rel = dir + "/" + rel
			}
			// The type is getdents', or an lstat's where it gave none.
			typ := e.Type()
			switch _, inTable := s.lookup(rel); {
			case inTable && typ.IsRegular():
				names[e.Name()] = true
				continue
			case inTable:
				return nil
			case s.isWatched(rel):
				continue // stamped by the pass
			case rulesPath(rel):
				return nil // a new rule or repository
			}
			switch {
			case typ.IsRegular():
				if walk.Admits(x.root, rel, false) {
					t.created = append(t.created, rel)
				}
			case typ.IsDir():
				if walk.Admits(x.root, rel, true) {
					files, ok := treewatch.NewFolder(x.root, rel, &budget, watch)
					if !ok {
						return nil
					}
					t.created = append(t.created, files...)
				}
			}
			// Anything else (a link, a socket) the walk passes over.
		}
	}
	slices.Sort(t.created)
	return t
}

// mergeSorted merges two sorted lists of paths, without duplicates.
func mergeSorted(a, b []string) []string {
	if len(a) == 0 {
		return b
	}
	if len(b) == 0 {
		return a
	}
	out := make([]string, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		switch {
		case a[0] < b[0]:
			out, a = append(out, a[0]), a[1:]
		case b[0] < a[0]:
			out, b = append(out, b[0]), b[1:]
		default:
			out, a, b = append(out, a[0]), a[1:], b[1:]
		}
	}
	return append(append(out, a...), b...)
}

// racy reports whether a file stamped st changed too close to the build
// to tell.
func (s *snapshot) racy(st indexfile.Stamp) bool {
	return st.Mtime >= s.h.Built || st.Ctime >= s.h.Built
}

// mergeByPath merges the watched paths and the files ids (both in path
// order) into one sequence in path order: i >= 0 is ids[i], i < 0 is
// watched[-i-1].
func mergeByPath(watched *indexfile.Table, ids []uint32, files *indexfile.Table) []int32 {
	nw := watched.Len()
	out := make([]int32, 0, nw+len(ids))
	w := 0
	for i, id := range ids {
		for w < nw && watched.Path(uint32(w)) < files.Path(id) {
			out = append(out, int32(-w-1))
			w++
		}
		out = append(out, int32(i))
	}
	for ; w < nw; w++ {
		out = append(out, int32(-w-1))
	}
	return out
}

// inParallel calls fn for 0 <= i < n over the walk's workers, each with
// its own stamper of root, inside guard: most calls are a stat, and neighbours in path
// order share a folder, so each worker takes ascending runs of about
// parallelRun items. Runs many times fewer than the items, taken in turn,
// keep the workers even where some folders cost more to stamp than
// others (two halves of a tree differed by a quarter). It returns how
// many files the stampers stamped.
func inParallel(root string, n int, guard func(run func()), fn func(st *indexfile.Stamper, i int)) (files int64) {
	workers := walk.Workers(0)
	run := max(min(parallelRun, (n+workers-1)/max(workers, 1)), 1)
	var wg sync.WaitGroup
	var total atomic.Int64
	var next atomic.Int64
	for range min(workers, (n+run-1)/run) {
		wg.Go(func() {
			st := indexfile.NewStamper(root)
			defer st.Close()
			guard(func() {
				for {
					lo := int(next.Add(int64(run))) - run
					if lo >= n {
						break
					}
					for i := lo; i < min(lo+run, n); i++ {
						fn(st, i)
					}
				}
			})
			total.Add(st.Files)
		})
	}
	wg.Wait()
	return total.Load()
}

// parallelRun is how many items of inParallel a worker takes at a time.
const parallelRun = 1024
