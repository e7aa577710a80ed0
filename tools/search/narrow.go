package search

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

// narrow sets p.skip from o.Index; a single file is always searched.
func (p *grepPlan) narrow(o Options) {
	if o.Index != nil && !p.isFile {
		p.skip = o.Index.Narrow(p.q.Regexp().String())
	}
}

// skipped reports whether the index lets grep pass over path.
func (p *grepPlan) skipped(path string) bool { return p.skip != nil && p.skip(path) }
