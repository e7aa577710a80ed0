package walk

import (
	"context"
	"iter"
	"os"
	"slices"
	"strings"
)

// Sorted yields the files under cfg.Root that the ignore rules and
// cfg.Filter admit, in the byte order of their paths relative to the root
// ("a-b" before "a/c", as a sort of the whole list would put them), one at
// a time: memory holds the directories on the current path, never the
// whole list. cfg.Visit and cfg.Workers are not used; with cfg.ByName the
// consumer must use or release each File (see File). The sequence ends
// early when ctx ends or the consumer stops; directories that cannot be
// listed are counted in stats and skipped.
//
// Listing is depth-first from one goroutine (the consumer's), which costs
// a getdents call and a sort per directory, a small share of a search that
// reads every file.
func Sorted(ctx context.Context, cfg Config, stats *Stats) iter.Seq[File] {
	return func(yield func(File) bool) {
		// Each level of the stack is one directory's admitted entries,
		// sorted, with the index of the next one to take.
		type level struct {
			kids []walkItem
			next int
		}
		var budget *dirBudget
		if cfg.ByName {
			budget = new(dirBudget)
		}
		root := walkItem{path: cfg.Root, rules: ancestorRules(cfg.Root), dir: true}
		stack := []level{{kids: sortedKids(cfg, root, stats, budget, nil)}}
		// The files not yet yielded when the walk ends early hold their
		// directories open.
		defer func() {
			for _, l := range stack {
				for _, it := range l.kids[l.next:] {
					it.odir.release()
				}
			}
		}()
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			if top.next == len(top.kids) {
				stack = stack[:len(stack)-1]
				continue
			}
			it := top.kids[top.next]
			top.kids[top.next] = walkItem{}
			top.next++
			if !it.dir {
				if !yield(fileOf(it)) {
					return
				}
				continue
			}
			if ctx.Err() != nil {
				return
			}
			// A level popped before left its list at this depth, every
			// item taken and cleared: the new level reuses it.
			var spare []walkItem
			if len(stack) < cap(stack) {
				spare = stack[: len(stack)+1 : len(stack)+1][len(stack)].kids[:0]
			}
			stack = append(stack, level{kids: sortedKids(cfg, it, stats, budget, spare)})
		}
	}
}

// sortedKids lists one directory into kids (empty; its room is reused)
// and orders its admitted entries so that the depth-first walk yields
// paths in byte order: a directory sorts as its name followed by '/',
// which is how every path below it begins.
func sortedKids(cfg Config, it walkItem, stats *Stats, budget *dirBudget, kids []walkItem) []walkItem {
	kids = listDir(cfg, it, kids, stats, budget)
	prefix := len(it.path) + 1
	if it.path == string(os.PathSeparator) {
		prefix = 1
	}
	slices.SortFunc(kids, func(a, b walkItem) int {
		return compareEntries(a.path[prefix:], a.dir, b.path[prefix:], b.dir)
	})
	return kids
}

// compareEntries orders two names of one directory as name, or name+"/"
// for a directory, without building those strings.
func compareEntries(a string, aDir bool, b string, bDir bool) int {
	n := min(len(a), len(b))
	if c := strings.Compare(a[:n], b[:n]); c != 0 {
		return c
	}
	return strings.Compare(tail(a[n:], aDir), tail(b[n:], bDir))
}

// tail is what follows the common prefix of two names, with the '/' a
// directory's paths continue with.
func tail(rest string, dir bool) string {
	if rest == "" && dir {
		return "/"
	}
	return rest
}
