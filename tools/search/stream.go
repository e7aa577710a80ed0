package search

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"

	"github.com/indusagi/induscode/internal/procs"
	"github.com/indusagi/induscode/internal/walk"
	"github.com/indusagi/induscode/tool"
)

// Line is one line of grep's content output.
type Line struct {
	// Path is the file's path relative to the working directory (Env.Dir),
	// as grep prints it.
	Path string
	// Num is the 1-based line number.
	Num int
	// Text is the line without its line break (and '\r'), clipped to
	// MaxLineChars characters. It is only valid during the call that
	// receives it: copy it to keep it.
	Text []byte
	// Match is false for a context line (before, after, context).
	Match bool
}

// Summary is what Grep reports besides the lines.
type Summary struct {
	Files   int      // files with at least one matching line
	Matches int      // matching lines (context lines not counted)
	Notices []string // partial results, unreadable paths, skipped files, worded as in grep's result
}

// Grep runs grep's content search and calls emit with each matching line
// (and the context lines in.Before, in.After and in.Context ask for) as it
// is found, in the order grep's result shows them: files by path, lines
// in file order. Memory stays bounded by a small window of files however
// many lines there are. in.OutputMode, in.HeadLimit and in.Offset are
// ignored: every line is passed, and the caller stops the search by
// returning an error from emit, which Grep then returns.
//
// Invalid input (a bad pattern, a missing path) is an error saying what to
// fix; a cancelled ctx returns its error. Problems that leave the result
// partial (the time budget of o, unreadable files) are Summary notices.
func Grep(ctx context.Context, env *tool.Env, in GrepInput, o Options, emit func(Line) error) (Summary, error) {
	in.OutputMode, in.HeadLimit, in.Offset = modeContent.String(), new(0), 0
	p, err := planGrep(in, env)
	if err != nil {
		return Summary{}, err
	}
	bctx, cancel := context.WithTimeoutCause(ctx, o.budget(), errBudget)
	defer cancel()
	r := newStreamRun(bctx, env, p, o, emit)
	err = r.run()
	if ctx.Err() != nil {
		return Summary{}, context.Cause(ctx)
	}
	sum := Summary{Files: r.files, Matches: r.matches, Notices: r.notices(p, env, o)}
	if err != nil && !errors.Is(err, errEnough) {
		return sum, err
	}
	return sum, nil
}

// errEnough stops a stream that has all the lines it will show.
var errEnough = errors.New("enough lines")

// Bounds of the reorder window. Files are searched in parallel but shown
// in path order, so results that are ready early wait for the files
// before them; these bound how much may wait.
const (
	// streamWindow is how many files may be in flight beyond the first
	// one not yet shown: enough to keep every worker busy past a slow
	// file, few enough that waiting results stay small.
	streamWindow = 64
	// maxSlotBytes bounds the lines one waiting file may hold; its worker
	// then waits until the file's turn comes and writes straight through.
	maxSlotBytes = 128 << 10
)

// streamRun is one ordered content search: a producer walks the tree in
// path order, workers scan files into slots, and the caller's goroutine
// passes the slots' lines to emit in order. The file at the head of the
// order (the one being shown) is written straight through by its worker.
type streamRun struct {
	ctx    context.Context
	cancel context.CancelCauseFunc
	env    *tool.Env
	p      *grepPlan
	o      Options
	emit   func(Line) error
	idle   func() // called before the emitter waits; may be nil

	stats            walk.Stats
	binary, tooLarge atomic.Int64
	split            atomic.Int64
	endWide          func() // set by the producer once the search is wide

	// Owned by whoever is emitting: the caller's goroutine, or the head
	// file's worker while it writes straight through.
	err     error
	line    Line
	files   int
	matches int
}

func newStreamRun(ctx context.Context, env *tool.Env, p *grepPlan, o Options, emit func(Line) error) *streamRun {
	r := &streamRun{env: env, p: p, o: o, emit: emit}
	r.ctx, r.cancel = context.WithCancelCause(ctx)
	return r
}

// slot is one file of the window.
type slot struct {
	r      *streamRun
	path   string
	rel    string
	mu     sync.Mutex
	lines  lineBuf       // lines found before the file's turn
	direct atomic.Bool   // the file's turn has come: lines go to emit
	head   chan struct{} // closed when direct is set
	done   chan struct{} // closed when the scan is over
	hit    fileHit
	err    error
}

// addLine is the scanner's sink. It runs on the worker.
func (sl *slot) addLine(num int, text []byte, match bool) bool {
	if sl.direct.Load() {
		return sl.r.deliver(sl, num, text, match)
	}
	sl.mu.Lock()
	if sl.direct.Load() {
		sl.mu.Unlock()
		return sl.r.deliver(sl, num, text, match)
	}
	sl.lines.add(num, text, match)
	full := sl.lines.size() >= maxSlotBytes
	sl.mu.Unlock()
	if full {
		select {
		case <-sl.head:
		case <-sl.r.ctx.Done():
			return false
		}
	}
	return true
}

// deliver passes one line to emit; only the current emitter calls it.
func (r *streamRun) deliver(sl *slot, num int, text []byte, match bool) bool {
	if r.err != nil {
		return false
	}
	if match {
		r.matches++
	}
	r.line = Line{Path: sl.rel, Num: num, Text: text, Match: match}
	if err := r.emit(r.line); err != nil {
		r.err = err
		r.cancel(err)
		return false
	}
	return true
}

// run searches and emits; it returns emit's error, if any, after every
// goroutine it started has ended.
func (r *streamRun) run() error {
	p := r.p
	workers := walk.Workers(r.o.Workers)
	if p.isFile {
		workers = 1
	}
	order := make(chan *slot, streamWindow)
	jobs := make(chan *slot, streamWindow)
	free := make(chan *slot, streamWindow+2)
	var wg sync.WaitGroup
	wg.Go(func() { r.produce(order, jobs, free) })
	for range workers {
		wg.Go(func() {
			sc := newScanner(p.q, p.scan)
			defer func() { r.split.Add(int64(sc.split)) }()
			for sl := range jobs {
				if r.ctx.Err() == nil {
					sc.sink = sl
					_, sl.err = sc.scanFile(r.ctx, sl.path, &sl.hit)
				}
				close(sl.done)
			}
		})
	}
	for sl := range order {
		r.take(sl)
		select {
		case free <- sl:
		default:
		}
	}
	wg.Wait()
	if r.endWide != nil {
		r.endWide()
	}
	r.cancel(nil)
	return r.err
}

// produce lists the files in path order and hands each to the emitter
// (order) and the workers (jobs); order's capacity is the window.
func (r *streamRun) produce(order, jobs, free chan *slot) {
	defer close(jobs)
	defer close(order)
	next := func(path string) bool {
		var sl *slot
		select {
		case sl = <-free:
			sl.lines.reset()
			sl.hit, sl.err = fileHit{}, nil
			sl.direct.Store(false)
		default:
			sl = &slot{r: r}
		}
		sl.path, sl.rel = path, r.env.Rel(path)
		sl.head, sl.done = make(chan struct{}), make(chan struct{})
		select {
		case order <- sl:
		case <-r.ctx.Done():
			return false
		}
		jobs <- sl // workers drain jobs to the end, so this cannot block for ever
		return true
	}
	if r.p.isFile {
		next(r.p.root)
		return
	}
	cfg := walk.Config{Root: r.p.root, Filter: r.p.filter}
	n := 0
	for path := range walk.Sorted(r.ctx, cfg, &r.stats) {
		if n++; n == walk.WideAfter {
			// As a parallel walk does: the workers want every
			// processor a calm server holds back (package procs). run
			// ends it once they are done.
			r.endWide = procs.Wide()
		}
		if !next(path) {
			return
		}
	}
}

// take makes sl the head: its waiting lines are emitted, then its worker
// writes straight through until the scan ends.
func (r *streamRun) take(sl *slot) {
	// Output so far is written out before a wait, and only then: once sl
	// is direct, its worker owns emit until the scan ends.
	if r.idle != nil && r.err == nil {
		select {
		case <-sl.done:
		default:
			r.idle()
		}
	}
	sl.mu.Lock()
	if r.err == nil {
		for i := range sl.lines.recs {
			num, text, match := sl.lines.at(i)
			if !r.deliver(sl, num, text, match) {
				break
			}
		}
	}
	sl.lines.reset()
	sl.direct.Store(true)
	close(sl.head)
	sl.mu.Unlock()
	<-sl.done
	if sl.hit.count > 0 {
		r.files++
	}
	switch err := sl.err; {
	case err == nil:
	case errors.Is(err, errBinary):
		r.binary.Add(1)
	case errors.Is(err, errTooLarge):
		r.tooLarge.Add(1)
	case r.ctx.Err() == nil:
		r.stats.Fail(err)
	}
}

// notices words what left the search partial.
func (r *streamRun) notices(p *grepPlan, env *tool.Env, o Options) []string {
	return searchNotices(noticeInput{
		budget:     context.Cause(r.ctx) == errBudget,
		o:          o,
		binaryFile: p.isFile && r.binary.Load() > 0,
		root:       env.Rel(p.root),
		tooLarge:   r.tooLarge.Load(),
		split:      r.split.Load(),
		unreadable: r.stats.Unreadable(),
		firstErr:   r.stats.FirstError(),
	})
}

// lineBuf holds the lines of a file that waits for its turn: their text
// back to back in one buffer, so a waiting line costs no allocation.
type lineBuf struct {
	text []byte
	recs []lineRec
}

type lineRec struct {
	num   int
	end   int // end of the line's text in lineBuf.text
	match bool
}

func (b *lineBuf) add(num int, text []byte, match bool) {
	b.text = append(b.text, text...)
	b.recs = append(b.recs, lineRec{num: num, end: len(b.text), match: match})
}

func (b *lineBuf) at(i int) (int, []byte, bool) {
	start := 0
	if i > 0 {
		start = b.recs[i-1].end
	}
	rec := b.recs[i]
	return rec.num, b.text[start:rec.end], rec.match
}

// size is what the buffer holds, in bytes.
func (b *lineBuf) size() int { return len(b.text) + len(b.recs)*24 }

// reset empties the buffer; a buffer grown large is dropped rather than
// kept for the next file.
func (b *lineBuf) reset() {
	if cap(b.text) > maxSlotBytes {
		b.text, b.recs = nil, nil
		return
	}
	b.text, b.recs = b.text[:0], b.recs[:0]
}
