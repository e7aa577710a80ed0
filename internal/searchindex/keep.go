package searchindex

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/indusagi/induscode/internal/searchindex/indexfile"
	"github.com/indusagi/induscode/internal/searchindex/treewatch"
	"github.com/indusagi/induscode/internal/searchindex/trigram"
)

// Keeper is an Index that a long-running host (serve) keeps built: when
// the index is missing or refused, or a search meets many files it cannot
// vouch for (changed, new), it is rebuilt in the background. A search
// never waits for a build; until one lands, grep scans what the index
// cannot vouch for.
type Keeper struct {
	*Index
	ctx context.Context
	// Failed, when set, hears of a build that failed.
	Failed func(error)

	building atomic.Bool
	wg       sync.WaitGroup
	mu       sync.Mutex
	last     time.Time // when the last build began

	tw     *treewatch.Watcher // under mu; see watch.go
	twSnap *snapshot          // the snapshot tw watches for

	checking atomic.Bool // a check of every stamp runs in the background
}

// trustFor is how long after a listing that checked every stamp the
// watch's silence vouches for a file (see watch.go): a change the watch
// cannot see is found by a search at most this long after it. A search
// later than that checks every stamp itself, which costs what a one-shot
// search's stat pass costs; searches in between start the next check in
// the background once half of it has passed, so that a server searched
// steadily seldom pays for one. Tests change it, and the clock.
var (
	trustFor = 2 * time.Second
	clock    = time.Now
)

// Rebuild bounds: a build after at least minRebuild, once a search met
// more stale files than staleFiles or staleShare of the table.
const (
	minRebuild = 30 * time.Second
	minUrgent  = 5 * time.Second // with no usable index, after a failed build
	staleFiles = 256
	staleShare = 50 // one file in 50
)

// Keep returns the keeper of the workspace at root; builds stop when ctx
// ends (Wait waits for them).
func Keep(ctx context.Context, root string) *Keeper {
	return &Keeper{Index: Open(root), ctx: ctx}
}

// Narrow is Index.Narrow, and starts a build when the index needs one.
func (k *Keeper) Narrow(expr string) func(path string) bool {
	s := k.load()
	if s == nil {
		k.rebuild(true)
		return nil
	}
	var stale atomic.Int64
	limit := max(int64(staleFiles), int64(s.files.Len()/staleShare))
	skip := k.narrow(expr, func() {
		if stale.Add(1) == limit {
			k.rebuild(false)
		}
	})
	return skip
}

// List is Index.List, and starts a build when the index needs one:
// there is none, files changed, or the tree's shape did. With the tree
// watched (watch.go), the files nothing wrote to need no stat.
func (k *Keeper) List(root, expr string, admit func(rel, name string) bool) ([]string, bool) {
	if root != k.root || trigram.Plan(expr).Op == trigram.All {
		return nil, false // only a walk knows a subfolder's rules; see Index.List
	}
	s := k.load()
	if s == nil {
		k.rebuild(true)
		return nil, false
	}
	tw := k.watcherFor(s)
	var stale atomic.Int64
	limit := max(int64(staleFiles), int64(s.files.Len()/staleShare))
	hk := listHooks{stale: func(rel string) {
		if tw != nil {
			tw.MarkDirty(rel)
		}
		if stale.Add(1) == limit {
			k.rebuild(false)
		}
	}}
	began := clock()
	age, armed := time.Duration(0), false
	if tw != nil {
		age, armed = tw.Age(began)
	}
	if armed && age < trustFor && tw.Sync() {
		watched := hk
		watched.clean = tw.Clean
		watched.extra = tw.CreatedFiles()
		for range watched.extra {
			if stale.Add(1) == limit {
				k.rebuild(false) // the created files are scanned until then
			}
		}
		if paths, ok := k.list(s, root, expr, admit, watched); ok {
			if age >= trustFor/2 {
				k.check(s, tw)
			}
			return paths, true
		}
	}
	// This listing checks every stamp, so a watcher set up before it
	// may vouch from now on for the files it found unchanged; one that
	// admits only some files (a type) checks only those, and arms
	// nothing.
	hk.arming = tw != nil && admit == nil
	if tw != nil {
		// Found by reading a changed folder: a new folder is watched
		// before it is read.
		hk.created, hk.watch, hk.linked = tw.AddCreated, tw.WatchFolder, tw.AddLinked
	}
	paths, ok := k.list(s, root, expr, admit, hk)
	if tw != nil && (hk.arming || !ok) {
		tw.SetArmed(ok, began)
	}
	if !ok && s.h.Flags&indexfile.FlagComplete != 0 {
		k.rebuild(false) // the tree's shape changed since the build
	}
	return paths, ok
}

// check checks every stamp of s's table in the background, as an arming
// listing does, so that the watch of tw vouches for another trustFor; one
// check at a time, none once the keeper's context ends.
func (k *Keeper) check(s *snapshot, tw *treewatch.Watcher) {
	if k.ctx.Err() != nil || !k.checking.CompareAndSwap(false, true) {
		return
	}
	k.wg.Go(func() {
		defer k.checking.Store(false)
		began := clock()
		_, ok := k.list(s, k.root, "", nil, listHooks{stale: tw.MarkDirty, arming: true,
			created: tw.AddCreated, watch: tw.WatchFolder, linked: tw.AddLinked})
		tw.SetArmed(ok, began)
	})
}

// watcherFor returns the watch over s's tree, setting it when s is new;
// nil when s cannot stand in for a walk or the tree cannot be watched.
func (k *Keeper) watcherFor(s *snapshot) *treewatch.Watcher {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.twSnap == s {
		return k.tw
	}
	if k.tw != nil {
		k.tw.Close()
	}
	k.tw, k.twSnap = nil, s
	if s.h.Flags&indexfile.FlagComplete != 0 && k.ctx.Err() == nil {
		k.tw = k.watch(s)
	}
	return k.tw
}

// rebuild starts a build unless one runs or one began too recently
// (unless urgent: there is no usable index).
func (k *Keeper) rebuild(urgent bool) {
	if k.ctx.Err() != nil || !indexfile.Supported {
		return
	}
	k.mu.Lock()
	wait := minRebuild
	if urgent {
		wait = minUrgent
	}
	if !k.last.IsZero() && time.Since(k.last) < wait {
		k.mu.Unlock()
		return
	}
	if !k.building.CompareAndSwap(false, true) {
		k.mu.Unlock()
		return
	}
	k.last = time.Now()
	k.mu.Unlock()
	k.wg.Go(func() {
		defer k.building.Store(false)
		if _, err := Build(k.ctx, k.root); err != nil && k.ctx.Err() == nil && k.Failed != nil {
			k.Failed(err)
		}
	})
}

// Wait waits for a build in progress.
func (k *Keeper) Wait() { k.wg.Wait() }
