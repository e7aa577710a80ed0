package search

import (
	"context"
	"sync/atomic"

	"github.com/indusagi/induscode/internal/walk"
)

// Narrower lets grep skip files that an index proves hold no match
// (package internal/searchindex). It only ever removes files a scan would
// find nothing in, so results, order, counts and limits stay the scan's.
type Narrower interface {
	// Narrow returns skip for a compiled pattern (its expression, with
	// the flags grep added): skip(path), given an absolute path the walk
	// admitted, is true only for a file certainly without a match. nil
	// means every file is searched.
	Narrow(expr string) (skip func(path string) bool)
}

// Lister is a Narrower that can also stand in for the walk.
type Lister interface {
	// List returns, in the byte order of their paths, the files under
	// root that the walk would admit (and admit keeps; nil keeps all)
	// minus those certainly without a match; ok is false when it cannot
	// tell without a walk.
	List(root, expr string, admit func(rel, name string) bool) (paths []string, ok bool)
}

// narrow sets p.list or p.skip from o.Index; a single file is always
// searched.
func (p *grepPlan) narrow(o Options) {
	if o.Index == nil || p.isFile {
		return
	}
	expr := p.q.Regexp().String()
	if l, ok := o.Index.(Lister); ok {
		if _, known := p.filter.AdmitsFile("", ""); known {
			var admit func(rel, name string) bool
			if p.filter.Types != nil {
				f := p.filter
				admit = func(rel, name string) bool { ok, _ := f.AdmitsFile(rel, name); return ok }
			}
			if paths, ok := l.List(p.root, expr, admit); ok {
				p.listed, p.list = true, paths
				return
			}
		}
	}
	p.skip = o.Index.Narrow(expr)
}

// skipped reports whether the index lets grep pass over path.
func (p *grepPlan) skipped(path string) bool { return p.skip != nil && p.skip(path) }

// visitListed calls visit for each of the files the index listed, from
// workers goroutines, as a walk would.
func visitListed(ctx context.Context, paths []string, workers int, visit func(int, walk.File)) {
	var next atomic.Int64
	done := make(chan struct{}, workers)
	for w := range workers {
		go func() {
			defer func() { done <- struct{}{} }()
			for ctx.Err() == nil {
				i := int(next.Add(1)) - 1
				if i >= len(paths) {
					return
				}
				visit(w, walk.ListedFile(paths[i]))
			}
		}()
	}
	for range workers {
		<-done
	}
}
