package searchindex

import (
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/indusagi/induscode/internal/searchindex/treewatch"
)

// watch sets watches over s's tree (package treewatch); nil when it
// cannot (too many directories for the system's limit, a path gone, a
// table that cannot be read).
func (k *Keeper) watch(s *snapshot) *treewatch.Watcher {
	paths, ok := k.watchedPaths(s)
	if !ok {
		return nil
	}
	return treewatch.New(k.ctx, &k.wg, k.root, filepath.Dir(k.path), watchedTable{s}, paths)
}

// watchedPaths copies the paths s's walk read out of its mapping, under
// survive.
func (k *Keeper) watchedPaths(s *snapshot) (paths []string, ok bool) {
	defer k.survive(s, debug.SetPanicOnFault(true), func(error) { ok = false })
	paths = make([]string, 0, s.watched.Len())
	for i := range uint32(s.watched.Len()) {
		paths = append(paths, strings.Clone(s.watched.Path(i)))
	}
	return paths, true
}

// watchedTable is a snapshot as a watch reads it.
type watchedTable struct{ s *snapshot }

var _ treewatch.Table = watchedTable{}

func (t watchedTable) InTable(rel string) bool   { _, ok := t.s.lookup(rel); return ok }
func (t watchedTable) IsWatched(rel string) bool { return t.s.isWatched(rel) }

// Guard runs fn, which reads the snapshot's mapping; a fault inside the
// mapping (the file cut short) makes it return false.
func (t watchedTable) Guard(fn func()) (ok bool) {
	defer func(was bool) {
		debug.SetPanicOnFault(was)
		if r := recover(); r != nil {
			if !t.s.maps(faultAddr(r)) {
				panic(r)
			}
			ok = false
		}
	}(debug.SetPanicOnFault(true))
	fn()
	return true
}
