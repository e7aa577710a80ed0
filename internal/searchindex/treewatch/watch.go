package treewatch

import (
	"context"
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/indusagi/induscode/internal/searchindex/indexfile"
	"github.com/indusagi/induscode/internal/walk"
	"github.com/indusagi/induscode/workspace"
)

// probeWait bounds the wait for the probe's event; beyond it the search
// checks every stamp instead.
const probeWait = time.Second

// Watcher is the watch over the tree of one index file.
type Watcher struct {
	table Table
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
	linked  map[string]bool // rel paths of files with other names: see Clean
	checked time.Time       // when the last listing that checked every stamp began
	done    bool            // the event loop ended
}

// Table is what a watcher reads of the index it watches for: whether a
// path is a file of its table or one of the paths its walk read. Guard
// runs fn, which reads the table, and reports false when the table could
// not be read (its mapping cut short).
type Table interface {
	InTable(rel string) bool
	IsWatched(rel string) bool
	Guard(fn func()) bool
}

// New watches the tree at root of an index whose file is in folder
// index (probes are made there) and whose walk read the paths watched
// (relative, '/'-separated); nil when it cannot (too many folders for the
// system's limit, a path gone). Its event loop runs on a goroutine of wg
// until ctx ends or Close.
func New(ctx context.Context, wg *sync.WaitGroup, root, index string, table Table, watched []string) *Watcher {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil
	}
	tw := &Watcher{table: table, w: w, root: root, index: index,
		dirty: map[string]bool{}, moved: map[string]bool{}, created: map[string]bool{}, probes: map[string]bool{},
		linked: map[string]bool{}}
	tw.cond = sync.NewCond(&tw.mu)
	if err := w.Add(tw.index); err != nil {
		w.Close()
		return nil
	}
	for _, rel := range watched {
		if rel == ".git" {
			continue // git writes in it all the time; the root's watch sees it go
		}
		if err := w.Add(filepath.Join(root, filepath.FromSlash(rel))); err != nil {
			w.Close()
			return nil
		}
	}
	wg.Go(func() { tw.loop(ctx) })
	return tw
}

// loop applies the watcher's events until it is closed.
func (tw *Watcher) loop(ctx context.Context) {
	defer func() {
		tw.mu.Lock()
		tw.done, tw.broken = true, true
		tw.cond.Broadcast()
		tw.mu.Unlock()
	}()
	for {
		select {
		case <-ctx.Done():
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

func (tw *Watcher) apply(ev fsnotify.Event) {
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
func (tw *Watcher) settle() {
	if len(tw.moved) == 0 {
		return
	}
	if !tw.table.Guard(tw.settleMoved) {
		tw.broken = true
	}
	clear(tw.moved)
}

// settleMoved is settle's work, reading the table.
func (tw *Watcher) settleMoved() {
	budget := MaxNewEntries
	for rel := range tw.moved {
		inTable := tw.table.InTable(rel)
		known := inTable || tw.table.IsWatched(rel)
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
			files, ok := NewFolder(tw.root, rel, &budget, tw.WatchFolder)
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
}

// WatchFolder watches folder rel, made since the build.
func (tw *Watcher) WatchFolder(rel string) bool {
	return tw.w.Add(filepath.Join(tw.root, filepath.FromSlash(rel))) == nil
}

// forgetCreatedIn drops the created files below folder rel.
func (tw *Watcher) forgetCreatedIn(rel string) {
	for f := range tw.created {
		if strings.HasPrefix(f, rel+"/") {
			delete(tw.created, f)
		}
	}
}

// CreatedFiles returns, in path order, the files created since the build
// that the walk would take; they are searched by every listing, as the
// index knows nothing of them.
func (tw *Watcher) CreatedFiles() []string {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	return slices.Sorted(maps.Keys(tw.created))
}

// Sync waits until every change made before it was called has been
// applied; false when the watch cannot vouch for the tree.
func (tw *Watcher) Sync() bool {
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

// Clean reports whether nothing wrote to rel since the watch was armed,
// as far as the watch can tell: a file with other names can be written
// through them unseen, so it is never clean.
func (tw *Watcher) Clean(rel string) bool {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	return !tw.dirty[rel] && !tw.linked[rel]
}

// AddLinked notes a file that has other names.
func (tw *Watcher) AddLinked(rel string) {
	tw.mu.Lock()
	tw.linked[rel] = true
	tw.mu.Unlock()
}

// Age is how long ago the last listing that checked every stamp began;
// ok is false when none has.
func (tw *Watcher) Age(now time.Time) (d time.Duration, ok bool) {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	if !tw.armed || tw.broken {
		return 0, false
	}
	return now.Sub(tw.checked), true
}

// AddCreated adds a file the walk would take, made since the build.
func (tw *Watcher) AddCreated(rel string) {
	tw.mu.Lock()
	tw.created[rel] = true
	tw.mu.Unlock()
}

func (tw *Watcher) MarkDirty(rel string) {
	tw.mu.Lock()
	tw.dirty[rel] = true
	tw.mu.Unlock()
}

// SetArmed records a listing that checked every stamp, begun at began:
// the watch vouches from then on (ok), or cannot.
func (tw *Watcher) SetArmed(ok bool, began time.Time) {
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

func (tw *Watcher) Close() {
	if err := tw.w.Close(); err != nil && !errors.Is(err, fsnotify.ErrClosed) {
		return
	}
}

// MaxNewEntries bounds what one search reads of folders made since the
// build; a tree larger than that is a walk's work.
const MaxNewEntries = 2000

// NewFolder walks folder rel, made since the build and one the walk
// would enter, with the walk's own rules (those of the ignore files on
// the way and of new ones in it), and returns the files it takes there.
// seen, when set, is called with each folder before it is listed, and
// may refuse it (a watcher watches it first, so that nothing made
// meanwhile goes unseen). ok is false when a folder cannot be read or
// holds a repository (other rules), or when budget (entries left to
// look at) runs out.
func NewFolder(root, rel string, budget *int, seen func(rel string) bool) (files []string, ok bool) {
	abs := filepath.Join(root, filepath.FromSlash(rel))
	if _, _, repo := indexfile.LstatAny(filepath.Join(abs, ".git")); repo || (seen != nil && !seen(rel)) {
		return nil, false
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	ok = true
	refuse := func() bool { ok = false; cancel(); return false }
	keep := func(sub, _ string, isDir bool) bool {
		mu.Lock()
		defer mu.Unlock()
		if *budget--; !ok || *budget < 0 {
			return refuse()
		}
		if isDir {
			dir := rel + "/" + sub
			if _, _, repo := indexfile.LstatAny(filepath.Join(abs, filepath.FromSlash(sub), ".git")); repo || (seen != nil && !seen(dir)) {
				return refuse()
			}
		}
		return true
	}
	visit := func(_ int, f walk.File) {
		sub, _ := strings.CutPrefix(f.Path, abs+string(filepath.Separator))
		mu.Lock()
		files = append(files, rel+"/"+filepath.ToSlash(sub))
		mu.Unlock()
	}
	var stats walk.Stats
	walk.Walk(ctx, walk.Config{Root: abs, Workers: 1, Visit: visit,
		Filter: walk.Filter{NeedRel: true, Keep: keep}}, &stats)
	mu.Lock()
	defer mu.Unlock()
	return files, ok && stats.Unreadable() == 0 && ctx.Err() == nil
}
