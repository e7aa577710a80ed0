package searchindex

import (
	"path"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"

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
// workspace's, or a directory or ignore file changed since the build (a
// file created, removed or renamed; a rule edited). grep then walks.
//
// Every file is checked against its stamp as Narrow checks it; a file
// of the table that is gone makes List refuse, since only a walk can
// tell what happened.
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
	// arming: a watcher set up before this listing will vouch for every
	// file it finds unchanged, so each file's stamp is checked, the
	// candidates' too (they are searched anyway), and each one changed
	// is reported to stale.
	arming bool
}

func (x *Index) list(s *snapshot, root, expr string, admit func(rel, name string) bool, hk listHooks) (paths []string, ok bool) {
	if root != x.root || s == nil || s.h.flags&flagComplete == 0 {
		return nil, false
	}
	defer runtime.KeepAlive(s) // the paths are views of its mapping
	defer x.survive(s, debug.SetPanicOnFault(true), func(error) { paths, ok = nil, false })
	if repoAbove(x.root) {
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
			if p := s.files.path(id); admit(p, path.Base(p)) {
				ids = append(ids, id)
			}
		}
	}
	// The watched paths (unless a watcher vouches for them) are checked
	// in the same pass, merged into the files in path order, so that each
	// folder is opened once.
	var watched table
	if hk.clean == nil {
		watched = s.watched
	}
	// With no watched paths to check, the work is the files in order.
	var work []int32
	n := len(ids)
	if watched.len() > 0 {
		work = mergeByPath(&watched, ids, &s.files)
		n = len(work)
	}
	search := make([]bool, len(ids))
	var refused, changed atomic.Bool
	x.fresh.mu.Lock()
	refreshed := len(x.fresh.files) > 0
	x.fresh.mu.Unlock()
	// Each worker reads the mapping too.
	guard := func(run func()) {
		defer x.survive(s, debug.SetPanicOnFault(true), func(error) { refused.Store(true) })
		run()
	}
	stamped := inParallel(x.root, n, guard, func(st *stamper, k int) {
		i := k
		if work != nil {
			i = int(work[k])
		}
		if i < 0 {
			if !s.vouches(st, watched.entry(uint32(-i-1))) {
				changed.Store(true)
			}
			return
		}
		e := s.files.entry(ids[i])
		must := cand == nil || cand.has(ids[i]) || e.stamp.size == unindexed
		if must && !hk.arming {
			search[i] = true
			return
		}
		if refreshed {
			abs := filepath.Join(x.root, filepath.FromSlash(e.path))
			if f, known := x.freshFor(e.path, abs); known {
				search[i] = must || f == nil || f.mayMatch(q)
				if f == nil {
					stale(strings.Clone(e.path))
				}
				return
			}
		}
		if hk.clean != nil && hk.clean(e.path) && !s.racy(e.stamp) {
			return
		}
		now, ok := st.file(e.path)
		switch {
		case !ok:
			refused.Store(true)
		case now == e.stamp && !s.racy(e.stamp):
			search[i] = must
		default:
			search[i] = true
			stale(strings.Clone(e.path))
		}
	})
	x.listStats.Add(stamped)
	if refused.Load() || changed.Load() {
		return nil, false
	}
	extra := hk.extra
	add := func(rel string) { paths = append(paths, filepath.Join(x.root, filepath.FromSlash(rel))) }
	for i, id := range ids {
		if !search[i] {
			continue
		}
		rel := s.files.path(id)
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

// racy reports whether a file stamped st changed too close to the build
// to tell.
func (s *snapshot) racy(st stamp) bool { return st.mtime >= s.h.built || st.ctime >= s.h.built }

// vouches reports whether the watched path w is as recorded.
func (s *snapshot) vouches(st *stamper, w entry) bool {
	now, ok := st.any(w.path)
	return ok && now == w.stamp && !s.racy(w.stamp)
}

// mergeByPath merges the watched paths and the files ids (both in path
// order) into one sequence in path order: i >= 0 is ids[i], i < 0 is
// watched[-i-1].
func mergeByPath(watched *table, ids []uint32, files *table) []int32 {
	nw := watched.len()
	out := make([]int32, 0, nw+len(ids))
	w := 0
	for i, id := range ids {
		for w < nw && watched.path(uint32(w)) < files.path(id) {
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
func inParallel(root string, n int, guard func(run func()), fn func(st *stamper, i int)) (files int64) {
	workers := walk.Workers(0)
	run := max(min(parallelRun, (n+workers-1)/max(workers, 1)), 1)
	var wg sync.WaitGroup
	var total atomic.Int64
	var next atomic.Int64
	for range min(workers, (n+run-1)/run) {
		wg.Go(func() {
			st := newStamper(root)
			defer st.close()
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
			total.Add(st.files)
		})
	}
	wg.Wait()
	return total.Load()
}

// parallelRun is how many items of inParallel a worker takes at a time.
const parallelRun = 1024
