package search

import (
	"context"
	"io/fs"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
)

// walkItem is one unit of work: a directory to list or a file to visit.
type walkItem struct {
	path  string     // absolute
	rules *rulesNode // the rules of the directory that holds it
	dir   bool
}

// walkConfig says what to walk and what to do with each file.
type walkConfig struct {
	root   string // absolute path of a directory
	filter entryFilter
	// visit is called for each regular file, from one of the workers;
	// worker is in [0, workers) so per-worker state needs no lock.
	visit func(worker int, path string)
	// workers is the parallelism; 0 means one per available CPU.
	workers int
}

// walkStats reports what went wrong along the way. A directory that cannot
// be listed is skipped, not fatal: a search reports what it could read.
type walkStats struct {
	unreadable atomic.Int64
	firstErr   atomic.Pointer[string]
}

func (s *walkStats) fail(err error) {
	s.unreadable.Add(1)
	msg := err.Error()
	s.firstErr.CompareAndSwap(nil, &msg)
}

// workerCount is the walk's parallelism: one worker per CPU the Go
// runtime may use, as ripgrep uses one thread per core.
func workerCount(n int) int {
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	return max(1, min(n, maxWorkers))
}

// walk visits every file under cfg.root that the ignore rules and
// cfg.keep admit, in parallel and in no particular order. It returns when
// every worker is done or ctx ends (then the walk is partial).
//
// The work list is one stack shared by all workers: a worker that lists a
// directory pushes its files and subdirectories, and any worker takes the
// next item. Depth-first order keeps the stack short; the lock is held
// only to push a directory's entries at once or to pop one item.
func walk(ctx context.Context, cfg walkConfig, stats *walkStats) {
	n := workerCount(cfg.workers)
	q := &workQueue{}
	q.cond = sync.NewCond(&q.mu)
	q.items = append(q.items, walkItem{path: cfg.root, rules: ancestorRules(cfg.root), dir: true})
	stop := context.AfterFunc(ctx, q.abort)
	defer stop()
	var wg sync.WaitGroup
	for w := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var kids []walkItem
			for {
				it, ok := q.pop()
				if !ok {
					return
				}
				kids = kids[:0]
				if it.dir {
					kids = listDir(cfg, it, kids, stats)
				} else {
					cfg.visit(w, it.path)
				}
				q.finish(kids)
			}
		}()
	}
	wg.Wait()
}

// workQueue is the shared stack of the walk with the bookkeeping to know
// when it is finished: empty and no worker holding an item that may still
// push more.
type workQueue struct {
	mu      sync.Mutex
	cond    *sync.Cond
	items   []walkItem
	busy    int
	stopped bool
}

func (q *workQueue) pop() (walkItem, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.items) == 0 && !q.stopped {
		if q.busy == 0 {
			q.stopped = true
			q.cond.Broadcast()
			break
		}
		q.cond.Wait()
	}
	if q.stopped {
		return walkItem{}, false
	}
	it := q.items[len(q.items)-1]
	q.items[len(q.items)-1] = walkItem{}
	q.items = q.items[:len(q.items)-1]
	q.busy++
	return it, true
}

func (q *workQueue) finish(kids []walkItem) {
	q.mu.Lock()
	q.items = append(q.items, kids...)
	q.busy--
	if len(kids) > 0 || (q.busy == 0 && len(q.items) == 0) {
		q.cond.Broadcast()
	}
	q.mu.Unlock()
}

func (q *workQueue) abort() {
	q.mu.Lock()
	q.stopped = true
	q.cond.Broadcast()
	q.mu.Unlock()
}

// listDir reads one directory and appends the entries to descend into or
// visit. Version-control directories, symlinks (not followed, as ripgrep
// and fd do by default), special files and ignored entries are dropped.
func listDir(cfg walkConfig, it walkItem, kids []walkItem, stats *walkStats) []walkItem {
	prefix := it.path + string(os.PathSeparator)
	if it.path == string(os.PathSeparator) {
		prefix = it.path
	}
	ents, err := readDir(it.path, prefix)
	if err != nil {
		stats.fail(err)
		return kids
	}
	var hasGit, hasGitIgnore, hasDotIgnore bool
	for i := range ents {
		switch ents[i].name {
		case gitDir:
			hasGit = true
		case gitIgnoreFile:
			hasGitIgnore = true
		case dotIgnoreFile:
			hasDotIgnore = true
		}
	}
	node := childNode(it.rules, it.path, hasGit, hasGitIgnore, hasDotIgnore)
	relPrefix := ""
	if it.path != cfg.root {
		relPrefix = relTo(cfg.root, it.path) + "/"
	}
	f := &cfg.filter
	for i := range ents {
		e := &ents[i]
		if vcsDirs[e.name] {
			continue
		}
		var isDir bool
		switch {
		case e.typ == fs.ModeDir:
			isDir = true
		case e.typ == 0:
		default: // symlink, device, FIFO, socket
			continue
		}
		abs := e.path
		rel := ""
		if f.needRel {
			rel = relPrefix + e.name
		}
		// As in ripgrep, a glob that admits an entry overrides both the
		// ignore files and the type filter.
		switch f.override(rel, e.name, isDir) {
		case ignoreIt:
			continue
		case noVerdict:
			if node != nil && node.ignored(abs, e.name, isDir) {
				continue
			}
			if !isDir && f.types != nil && f.types.match(rel, e.name, false) != ignoreIt {
				continue
			}
		}
		if f.keep != nil && !f.keep(rel, e.name, isDir) {
			continue
		}
		kids = append(kids, walkItem{path: abs, rules: node, dir: isDir})
	}
	return kids
}

// entryFilter narrows the walk beyond the ignore rules.
type entryFilter struct {
	// globs is grep's glob list with ripgrep's override semantics: a
	// plain glob admits what it matches even if an ignore file excludes
	// it, "!glob" excludes, and when there is any plain glob a file that
	// matches none is left out. Directories are only excluded by "!glob".
	globs      *ruleSet
	whitelists bool
	// types keeps the files whose base name matches (grep's type).
	types *ruleSet
	// keep is a last test on what survives (find's pattern).
	keep func(rel, name string, isDir bool) bool
	// needRel is set when globs or keep look at the path relative to the
	// walk's root (slash-separated); otherwise rel is passed empty.
	needRel bool
}

func (f *entryFilter) override(rel, name string, isDir bool) verdict {
	if f.globs == nil {
		return noVerdict
	}
	switch f.globs.match(rel, name, isDir) {
	case ignoreIt:
		return keepIt
	case keepIt:
		return ignoreIt
	}
	if f.whitelists && !isDir {
		return ignoreIt
	}
	return noVerdict
}

// dirEntry is a directory entry: its full path, its base name (a suffix
// of path) and its type bits (fs.ModeDir, fs.ModeSymlink, …, 0 for a
// regular file).
type dirEntry struct {
	path, name string
	typ        fs.FileMode
}
