package searchindex

import (
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/indusagi/induscode/internal/walk"
	"github.com/indusagi/induscode/workspace"
)

// A Keeper watches the tree of its index (fsnotify) so that a search
// needs no stat of the files nothing wrote to. The watches are set on
// every directory and ignore file the build stamped; then one listing
// checks every stamp as a one-shot search does, and from then on:
//   - a file written or touched is dirty: it is checked by its stamp
//     (and scanned when changed) until the next build;
//   - an entry created, removed or renamed is looked at again before the
//     next search: a file of the table that is a file again (replaced by
//     a rename, as the deck's own writes and most editors do) is dirty;
//     a name that came and went (their temporary files) changes nothing;
//   - a new file the walk would take is searched by every search until
//     the next build, and one its ignore rules leave out counts for
//     nothing;
//   - a file of the table removed drops out (its stamp finds it gone);
//   - a new folder the walk would enter is watched, then listed: its
//     files are searched as created ones;
//   - anything else that changes the tree's shape (a folder of the table
//     gone, a new folder too large to list), an ignore file
//     changed, or an event lost (queue overflow, a watcher error) breaks
//     the watch: searches walk, as they do without one, until the next
//     build.
// Before each listing a probe file is created in the index folder and
// its event awaited: the kernel queues events in order, so every change
// made before the search began has been seen by then.
//
// The watch does not see every change. A write through a shared mapping
// (mmap) makes no event, nor does a write through another name of the
// file (a hard link outside the workspace, or in a folder the walk
// ignores and nothing watches). So silence vouches for a file only for a
// while (trustFor) after a listing checked every stamp; a search later
// than that checks every stamp again, as a one-shot search does, and
// searches in between start that check in the background (see
// Keeper.List). Meanwhile the files the watch cannot speak for are
// stamped by every search: those with other names (found by the last
// full check), those written to, and the candidates, which are searched
// anyway.

// probeWait bounds the wait for the probe's event; beyond it the search
// checks every stamp instead.
const probeWait = time.Second

// treeWatcher is the watch over one snapshot's tree.
type treeWatcher struct {
	snap  *snapshot
	w     *fsnotify.Watcher
	root  string
	index string // the index folder, where probes are made

	mu      sync.Mutex
	cond    *sync.Cond
	armed   bool // a listing checked every stamp since the watches were set
	broken  bool
	dirty   map[string]bool // rel paths
	moved   map[string]bool // rel paths created, removed or renamed: see settle
	created map[string]bool // rel paths of files the walk would take, made since the build
	probes  map[string]bool // probe files whose creation was seen
	linked  map[string]bool // rel paths of files with other names: see clean
	checked time.Time       // when the last listing that checked every stamp began
	done    bool            // the event loop ended
}

// watch sets watches over s's tree; nil when it cannot (too many
// directories for the system's limit, a path gone).
func (k *Keeper) watch(s *snapshot) *treeWatcher {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil
	}
	tw := &treeWatcher{snap: s, w: w, root: k.root, index: filepath.Dir(k.path),
		dirty: map[string]bool{}, moved: map[string]bool{}, created: map[string]bool{}, probes: map[string]bool{},
		linked: map[string]bool{}}
	tw.cond = sync.NewCond(&tw.mu)
	if err := w.Add(tw.index); err != nil {
		w.Close()
		return nil
	}
	if !k.addWatched(w, s) {
		w.Close()
		return nil
	}
	k.wg.Go(func() { tw.loop(k) })
	return tw
}

// addWatched watches every path s's walk read, reading them from its
// mapping under survive.
func (k *Keeper) addWatched(w *fsnotify.Watcher, s *snapshot) (ok bool) {
	defer k.survive(s, debug.SetPanicOnFault(true), func(error) { ok = false })
	for i := range uint32(s.watched.Len()) {
		rel := s.watched.Path(i)
		if rel == ".git" {
			continue // git writes in it all the time; the root's watch sees it go
		}
		if err := w.Add(filepath.Join(k.root, filepath.FromSlash(rel))); err != nil {
			return false
		}
	}
	return true
}

// loop applies the watcher's events until it is closed.
func (tw *treeWatcher) loop(k *Keeper) {
	defer func() {
		tw.mu.Lock()
		tw.done, tw.broken = true, true
		tw.cond.Broadcast()
		tw.mu.Unlock()
	}()
	for {
		select {
		case <-k.ctx.Done():
			tw.w.Close()
			return
		case err, ok := <-tw.w.Errors:
			if !ok {
				return
			}
			_ = err // an overflow or a failure: events may be lost
			tw.mu.Lock()
			tw.broken = true
			tw.mu.Unlock()
		case ev, ok := <-tw.w.Events:
			if !ok {
				return
			}
			tw.apply(ev)
		}
	}
}

func (tw *treeWatcher) apply(ev fsnotify.Event) {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	if filepath.Dir(ev.Name) == tw.index {
		if ev.Has(fsnotify.Create) {
			tw.probes[filepath.Base(ev.Name)] = true
			tw.cond.Broadcast()
		}
		return
	}
	rel, ok := strings.CutPrefix(ev.Name, tw.root+string(filepath.Separator))
	if ev.Name == tw.root {
		rel, ok = ".", true
	}
	if !ok {
		return
	}
	rel = filepath.ToSlash(rel)
	base := filepath.Base(rel)
	switch {
	case rel == workspace.StateDir || strings.HasPrefix(rel, workspace.StateDir+"/"):
	case base == ".gitignore" || base == ".ignore" || rel == ".git" || strings.HasPrefix(rel, ".git/"):
		tw.broken = true // a rule may have changed
	case ev.Has(fsnotify.Create) || ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename):
		tw.moved[rel] = true // the tree's shape may have changed: see settle
	default:
		tw.dirty[rel] = true
	}
}

// settle decides, under tw.mu, what the entries created, removed or
// renamed since the last search did to the tree, by what is there now:
// a file of the table that is a regular file again is dirty (its stamp
// says whether it changed), and so is one gone (the listing's stamp
// drops it); a name outside the table and the watched folders that is
// gone again never counted; a new regular file joins the created files
// if the walk would take it (by the ignore rules on its way: an ignored
// one changes nothing), and so do the files of a new folder the walk
// would enter (see newFolder); a folder of the table gone, or a file of
// the table turned into something else, breaks the watch. It reads the table, so a fault on the mapping
// breaks it too.
func (tw *treeWatcher) settle() {
	if len(tw.moved) == 0 {
		return
	}
	s := tw.snap
	defer func(was bool) {
		debug.SetPanicOnFault(was)
		if r := recover(); r != nil {
			if !s.maps(faultAddr(r)) {
				panic(r)
			}
			tw.broken = true
		}
	}(debug.SetPanicOnFault(true))
	budget := maxNewEntries
	for rel := range tw.moved {
		_, inTable := s.lookup(rel)
		known := inTable || s.isWatched(rel)
		fi, err := os.Lstat(filepath.Join(tw.root, filepath.FromSlash(rel)))
		// Decided again from what is there now; a new folder takes what
		// was known of its path with it, and is read again.
		delete(tw.created, rel)
		tw.forgetCreatedIn(rel)
		switch {
		case err == nil && inTable && fi.Mode().IsRegular():
			tw.dirty[rel] = true
		case errors.Is(err, fs.ErrNotExist) && inTable:
			tw.dirty[rel] = true // removed: its stamp finds it gone, and it drops out
		case errors.Is(err, fs.ErrNotExist) && !known:
		case err != nil || known:
			tw.broken = true
		case fi.Mode().IsRegular():
			if walk.Admits(tw.root, rel, false) {
				tw.created[rel] = true
			}
		case fi.IsDir():
			if !walk.Admits(tw.root, rel, true) {
				break
			}
			// A new folder the walk would enter: each of its folders is
			// watched before it is listed, so that nothing made in it
			// meanwhile goes unseen.
			files, ok := newFolder(tw.root, rel, &budget, tw.watchFolder)
			if !ok {
				tw.broken = true
				break
			}
			for _, f := range files {
				tw.created[f] = true
			}
		}
		// Anything else new (a link, a socket) is an entry the walk
		// passes over.
	}
	clear(tw.moved)
}

// watchFolder watches folder rel, made since the build.
func (tw *treeWatcher) watchFolder(rel string) bool {
	return tw.w.Add(filepath.Join(tw.root, filepath.FromSlash(rel))) == nil
}

// forgetCreatedIn drops the created files below folder rel.
func (tw *treeWatcher) forgetCreatedIn(rel string) {
	for f := range tw.created {
		if strings.HasPrefix(f, rel+"/") {
			delete(tw.created, f)
		}
	}
}

// createdFiles returns, in path order, the files created since the build
// that the walk would take; they are searched by every listing, as the
// index knows nothing of them.
func (tw *treeWatcher) createdFiles() []string {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	return slices.Sorted(maps.Keys(tw.created))
}

// sync waits until every change made before it was called has been
// applied; false when the watch cannot vouch for the tree.
func (tw *treeWatcher) sync() bool {
	tw.mu.Lock()
	usable := tw.armed && !tw.broken
	tw.mu.Unlock()
	if !usable {
		return false
	}
	f, err := workspace.CreateTemp(tw.index)
	if err != nil {
		return false
	}
	name := filepath.Base(f.Name())
	f.Close()
	defer workspace.Remove(f.Name())
	timer := time.AfterFunc(probeWait, func() {
		tw.mu.Lock()
		tw.cond.Broadcast()
		tw.mu.Unlock()
	})
	defer timer.Stop()
	deadline := time.Now().Add(probeWait)
	tw.mu.Lock()
	defer tw.mu.Unlock()
	for !tw.probes[name] && !tw.done && time.Now().Before(deadline) {
		tw.cond.Wait()
	}
	seen := tw.probes[name]
	delete(tw.probes, name)
	if seen {
		tw.settle()
	}
	return seen && !tw.broken
}

// clean reports whether nothing wrote to rel since the watch was armed,
// as far as the watch can tell: a file with other names can be written
// through them unseen, so it is never clean.
func (tw *treeWatcher) clean(rel string) bool {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	return !tw.dirty[rel] && !tw.linked[rel]
}

// addLinked notes a file that has other names.
func (tw *treeWatcher) addLinked(rel string) {
	tw.mu.Lock()
	tw.linked[rel] = true
	tw.mu.Unlock()
}

// age is how long ago the last listing that checked every stamp began;
// ok is false when none has.
func (tw *treeWatcher) age(now time.Time) (d time.Duration, ok bool) {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	if !tw.armed || tw.broken {
		return 0, false
	}
	return now.Sub(tw.checked), true
}

// addCreated adds a file the walk would take, made since the build.
func (tw *treeWatcher) addCreated(rel string) {
	tw.mu.Lock()
	tw.created[rel] = true
	tw.mu.Unlock()
}

func (tw *treeWatcher) markDirty(rel string) {
	tw.mu.Lock()
	tw.dirty[rel] = true
	tw.mu.Unlock()
}

// setArmed records a listing that checked every stamp, begun at began:
// the watch vouches from then on (ok), or cannot.
func (tw *treeWatcher) setArmed(ok bool, began time.Time) {
	tw.mu.Lock()
	if ok {
		tw.armed = true
		if began.After(tw.checked) {
			tw.checked = began
		}
	} else {
		tw.broken = true
	}
	tw.mu.Unlock()
}

func (tw *treeWatcher) close() {
	if err := tw.w.Close(); err != nil && !errors.Is(err, fsnotify.ErrClosed) {
		return
	}
}
