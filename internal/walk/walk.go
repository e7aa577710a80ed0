package walk

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/indusagi/induscode/internal/procs"
)

// Limits of the walk, named so the tests that pin them agree.
const (
	// maxWorkers caps the parallel walk. Beyond 16 the disk, not the CPU,
	// limits a search, and each worker of a search holds a read buffer.
	maxWorkers = 16
	// WideAfter is how many entries a parallel walk finds before it tells
	// a host that runs Go code on fewer processors while calm that it
	// wants them (package procs): a small walk is over before they would
	// pay. Sorted's consumers that search in parallel use it too.
	WideAfter = 512

	// maxIgnoreFile bounds how much of one ignore file is read; real ones
	// are kilobytes, and a huge one is a mistake that must not cost memory.
	maxIgnoreFile = 1 << 20
)

// walkItem is one unit of work: a directory to list or a file to visit.
type walkItem struct {
	path  string     // absolute
	rules *rulesNode // the rules of the directory that holds it
	dir   bool
	odir  *openDir // a file's directory, kept open (Config.ByName)
}

// Config says what to walk and what to do with each file.
type Config struct {
	Root   string // absolute path of a directory
	Filter Filter
	// Visit is called for each regular file, from one of the workers;
	// worker is in [0, Workers(cfg.Workers)) so per-worker state needs
	// no lock. Sorted does not call it.
	Visit func(worker int, f File)
	// Workers is the parallelism; 0 means one per available CPU.
	Workers int
	// ByName keeps each directory open until its files are used, for a
	// consumer that opens or stats every file (see File); it must then use
	// or release each File it is given.
	ByName bool
}

// Stats reports what went wrong along the way. A directory that cannot
// be listed is skipped, not fatal: a search reports what it could read.
type Stats struct {
	unreadable atomic.Int64
	firstErr   atomic.Pointer[string]
}

// Fail counts one path that could not be read; the first error is kept
// for the notice that names it. Visitors call it for files they cannot
// open, so one count covers directories and files.
func (s *Stats) Fail(err error) {
	s.unreadable.Add(1)
	msg := err.Error()
	s.firstErr.CompareAndSwap(nil, &msg)
}

// Unreadable is how many paths could not be read.
func (s *Stats) Unreadable() int64 { return s.unreadable.Load() }

// FirstError is the message of the first failure, or "".
func (s *Stats) FirstError() string {
	if p := s.firstErr.Load(); p != nil {
		return *p
	}
	return ""
}

// Workers returns the walk's parallelism for a requested n: one worker per
// CPU the process may use, as ripgrep uses one thread per core. It plans
// for the processor count the process started with (procs.Default), not
// only the one of the moment: a server may run on one processor while
// calm and lift the count once a walk grows wide, and the workers then
// spread out.
func Workers(n int) int {
	if n <= 0 {
		n = procs.Default()
	}
	return max(1, min(n, maxWorkers))
}

// Walk visits every file under cfg.Root that the ignore rules and
// cfg.Filter admit, in parallel and in no particular order. It returns when
// every worker is done or ctx ends (then the walk is partial).
//
// The work list is one stack shared by all workers: a worker that lists a
// directory pushes its files and subdirectories, and any worker takes the
// next item. Depth-first order keeps the stack short; the lock is held
// only to push a directory's entries at once or to pop one item.
func Walk(ctx context.Context, cfg Config, stats *Stats) {
	n := Workers(cfg.Workers)
	q := &workQueue{}
	q.cond = sync.NewCond(&q.mu)
	q.items = append(q.items, walkItem{path: cfg.Root, rules: ancestorRules(cfg.Root), dir: true})
	stop := context.AfterFunc(ctx, q.abort)
	defer stop()
	defer q.narrow()
	var budget *dirBudget
	if cfg.ByName {
		budget = new(dirBudget)
		// Files left on the stack by an aborted walk were never visited.
		defer func() {
			for _, it := range q.items {
				it.odir.release()
			}
		}()
	}
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
					kids = listDir(cfg, it, kids, stats, budget)
				} else {
					cfg.Visit(w, fileOf(it))
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
	found   int    // entries pushed so far
	endWide func() // set once the walk has said it is wide
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
	if q.found += len(kids); q.found >= WideAfter && q.endWide == nil && !q.stopped {
		q.endWide = procs.Wide()
	}
	q.mu.Unlock()
}

// narrow ends the wide work, once the workers are done.
func (q *workQueue) narrow() {
	if q.endWide != nil {
		q.endWide()
	}
}

func (q *workQueue) abort() {
	q.mu.Lock()
	q.stopped = true
	q.cond.Broadcast()
	q.mu.Unlock()
}

// entryLists holds the entry lists of directories listed before: one is
// needed only while its directory is sorted into kids, and a list grown
// anew for each of thousands of directories was a walk's largest
// allocation after the paths themselves.
var entryLists = sync.Pool{New: func() any { return new([]dirEntry) }}

// listDir reads one directory and appends the entries to descend into or
// visit. Version-control directories, symlinks (not followed, as ripgrep
// and fd do by default), special files and ignored entries are dropped.
func listDir(cfg Config, it walkItem, kids []walkItem, stats *Stats, budget *dirBudget) []walkItem {
	prefix := it.path + string(os.PathSeparator)
	if it.path == string(os.PathSeparator) {
		prefix = it.path
	}
	ep := entryLists.Get().(*[]dirEntry)
	ents, odir, err := readDir(it.path, prefix, budget, (*ep)[:0])
	defer func() {
		clear(ents) // the paths live on in kids, not in the pool
		*ep = ents[:0]
		entryLists.Put(ep)
	}()
	if err != nil {
		stats.Fail(err)
		return kids
	}
	first := len(kids)
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
	if it.path != cfg.Root {
		relPrefix = relTo(cfg.Root, it.path) + "/"
	}
	f := &cfg.Filter
	for i := range ents {
		e := &ents[i]
		if skipDir(e.name) {
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
		if f.NeedRel {
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
			if !isDir && f.Types != nil && f.Types.match(rel, e.name, false) != ignoreIt {
				continue
			}
		}
		if f.Keep != nil && !f.Keep(rel, e.name, isDir) {
			continue
		}
		kids = append(kids, walkItem{path: abs, rules: node, dir: isDir})
	}
	odir.hold(kids[first:])
	return kids
}

// Filter narrows the walk beyond the ignore rules. The zero value keeps
// everything the ignore rules keep; SetGlobs and SetTypes fill it from a
// search tool's glob and type inputs.
type Filter struct {
	// Globs is a glob list with ripgrep's override semantics: a plain
	// glob admits what it matches even if an ignore file excludes it,
	// "!glob" excludes, and when there is any plain glob (Whitelists) a
	// file that matches none is left out. Directories are only excluded
	// by "!glob".
	Globs      *Rules
	Whitelists bool
	// Types keeps the files whose base name matches (grep's type).
	Types *Rules
	// Keep is a last test on what survives (find's pattern).
	Keep func(rel, name string, isDir bool) bool
	// NeedRel is set when Globs or Keep look at the path relative to the
	// walk's root (slash-separated); otherwise rel is passed empty.
	NeedRel bool
}

// SetGlobs sets the glob list (see Filter.Globs). Each glob must be
// valid; {a,b} alternates, as in ripgrep's --glob.
func (f *Filter) SetGlobs(globs []string) error {
	if len(globs) == 0 {
		return nil
	}
	for _, g := range globs {
		if _, ok := parseRuleSyntax(g, true); !ok {
			return fmt.Errorf("glob %q is not a valid glob pattern; use *, ?, **, [abc] and {a,b}", g)
		}
		if !strings.HasPrefix(g, "!") {
			f.Whitelists = true
		}
	}
	f.Globs = parseRuleLines("", []byte(strings.Join(globs, "\n")), true)
	f.NeedRel = true
	return nil
}

// SetTypes keeps only files of the listed types ("go" or "ts,js"; see
// TypeNames). An unknown name is an error that lists the known ones.
func (f *Filter) SetTypes(spec string) error {
	t, err := typeMatcher(spec)
	if err != nil {
		return err
	}
	f.Types = t
	return nil
}

// AdmitsFile reports whether f keeps a file that the ignore rules admit,
// at rel (slash-separated, below the walk's root) with base name name,
// as the walk would decide. It can only say so for a Filter of types
// alone (known is false otherwise): a glob can admit what the ignore
// rules leave out, and Keep can prune directories.
func (f *Filter) AdmitsFile(rel, name string) (admit, known bool) {
	if f.Globs != nil || f.Keep != nil {
		return false, false
	}
	if f.Types != nil && f.Types.match(rel, name, false) != ignoreIt {
		return false, true
	}
	return true, true
}

func (f *Filter) override(rel, name string, isDir bool) verdict {
	if f.Globs == nil {
		return noVerdict
	}
	switch f.Globs.match(rel, name, isDir) {
	case ignoreIt:
		return keepIt
	case keepIt:
		return ignoreIt
	}
	if f.Whitelists && !isDir {
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
