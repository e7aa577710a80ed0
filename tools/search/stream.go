package search

import (
	"context"
	"errors"
	"slices"
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
	p.narrow(o)
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
	// streamWindow is how many batches of files may be in flight beyond
	// the first one not yet shown: enough to keep every worker busy past
	// a slow file, few enough that waiting results stay small.
	streamWindow = 64
	// maxBatch is how many files one batch holds at most. Files go to
	// the workers in batches of consecutive paths, so that the hand-offs
	// between goroutines (each a wake-up of a parked one) are paid per
	// batch, not per file; batches start at one file and double, so a
	// small search still spreads over every worker.
	maxBatch = 32
	// maxSlotBytes bounds the lines one waiting batch may hold; its
	// worker then waits until the batch's turn comes and writes straight
	// through.
	maxSlotBytes = 128 << 10
)

// streamRun is one ordered content search: a producer walks the tree in
// path order and hands out batches of consecutive files, workers scan each
// batch into its slot, and the caller's goroutine passes the slots' lines
// to emit in order. The batch at the head of the order (the one being
// shown) is written straight through by its worker.
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
	// batch's worker while it writes straight through.
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

// slot is one batch of the window: consecutive files in path order.
type slot struct {
	r      *streamRun
	files  []walk.File
	rels   []string // paths as shown, made when a file's first line is emitted
	cur    int      // index in paths of the file being scanned
	mu     sync.Mutex
	lines  lineBuf       // lines found before the batch's turn
	direct atomic.Bool   // the batch's turn has come: lines go to emit
	head   chan struct{} // closed when direct is set
	done   chan struct{} // closed when the scan is over
	// Set by the worker, read by the emitter once done is closed.
	matched int // files with at least one matching line
}

// addLine is the scanner's sink. It runs on the worker.
func (sl *slot) addLine(num int, text []byte, match bool) bool {
	if sl.direct.Load() {
		return sl.r.deliver(sl, sl.cur, num, text, match)
	}
	sl.mu.Lock()
	if sl.direct.Load() {
		sl.mu.Unlock()
		return sl.r.deliver(sl, sl.cur, num, text, match)
	}
	sl.lines.add(sl.cur, num, text, match)
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

// deliver passes one line of the batch's file i to emit; only the
// current emitter calls it.
func (r *streamRun) deliver(sl *slot, i, num int, text []byte, match bool) bool {
	if r.err != nil {
		return false
	}
	if match {
		r.matches++
	}
	if sl.rels[i] == "" {
		sl.rels[i] = r.env.Rel(sl.files[i].Path)
	}
	r.line = Line{Path: sl.rels[i], Num: num, Text: text, Match: match}
	if err := r.emit(r.line); err != nil {
		r.err = err
		r.cancel(err)
		return false
	}
	return true
}

// scan searches the files of sl in order with sc. It runs on a worker.
func (r *streamRun) scan(sc *scanner, sl *slot) {
	defer close(sl.done)
	sc.sink = sl
	var hit fileHit
	for i, f := range sl.files {
		if r.ctx.Err() != nil {
			release(sl.files[i:])
			return
		}
		sl.cur = i
		if r.p.skipped(f.Path) {
			f.Release()
			continue
		}
		ok, err := sc.scanFile(r.ctx, f, &hit)
		if ok {
			sl.matched++
		}
		switch {
		case err == nil:
		case errors.Is(err, errBinary):
			r.binary.Add(1)
		case errors.Is(err, errTooLarge):
			r.tooLarge.Add(1)
		case r.ctx.Err() == nil:
			r.stats.Fail(err)
		}
	}
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
			defer func() {
				r.split.Add(int64(sc.split))
				sc.release()
			}()
			for sl := range jobs {
				r.scan(sc, sl)
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

// produce lists the files in path order and hands them, in batches, to
// the emitter (order) and the workers (jobs); order's capacity is the
// window.
func (r *streamRun) produce(order, jobs, free chan *slot) {
	defer close(jobs)
	defer close(order)
	var sl *slot
	size := 1 // of the next batch
	send := func() bool {
		sl.rels = slices.Grow(sl.rels[:0], len(sl.files))[:len(sl.files)]
		clear(sl.rels)
		sl.head, sl.done = make(chan struct{}), make(chan struct{})
		select {
		case order <- sl:
		case <-r.ctx.Done():
			release(sl.files)
			return false
		}
		jobs <- sl // workers drain jobs to the end, so this cannot block for ever
		sl = nil
		size = min(2*size, maxBatch)
		return true
	}
	add := func(f walk.File) bool {
		if sl == nil {
			select {
			case sl = <-free:
				sl.lines.reset()
				clear(sl.files)
				sl.files, sl.matched = sl.files[:0], 0
				sl.direct.Store(false)
			default:
				sl = &slot{r: r}
			}
		}
		sl.files = append(sl.files, f)
		return len(sl.files) < size || send()
	}
	defer func() {
		if sl == nil {
			return
		}
		if r.ctx.Err() == nil {
			send()
		} else {
			release(sl.files)
		}
	}()
	if r.p.isFile {
		add(walk.FileAt(r.p.root))
		return
	}
	if r.p.listed {
		for _, path := range r.p.list {
			if !add(walk.ListedFile(path)) {
				return
			}
		}
		return
	}
	cfg := walk.Config{Root: r.p.root, Filter: r.p.filter, ByName: true}
	n := 0
	for f := range walk.Sorted(r.ctx, cfg, &r.stats) {
		if n++; n == walk.WideAfter {
			// As a parallel walk does: the workers want every
			// processor a calm server holds back (package procs). run
			// ends it once they are done.
			r.endWide = procs.Wide()
		}
		if !add(f) {
			return
		}
	}
}

// release gives up files that will not be searched (see walk.File).
func release(files []walk.File) {
	for _, f := range files {
		f.Release()
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
			file, num, text, match := sl.lines.at(i)
			if !r.deliver(sl, file, num, text, match) {
				break
			}
		}
	}
	sl.lines.reset()
	sl.direct.Store(true)
	close(sl.head)
	sl.mu.Unlock()
	<-sl.done
	r.files += sl.matched
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
	file  int // index of the line's file in its batch
	num   int
	end   int // end of the line's text in lineBuf.text
	match bool
}

func (b *lineBuf) add(file, num int, text []byte, match bool) {
	b.text = append(b.text, text...)
	b.recs = append(b.recs, lineRec{file: file, num: num, end: len(b.text), match: match})
}

func (b *lineBuf) at(i int) (file, num int, text []byte, match bool) {
	start := 0
	if i > 0 {
		start = b.recs[i-1].end
	}
	rec := b.recs[i]
	return rec.file, rec.num, b.text[start:rec.end], rec.match
}

// size is what the buffer holds, in bytes.
func (b *lineBuf) size() int { return len(b.text) + len(b.recs)*32 }

// reset empties the buffer; a buffer grown large is dropped rather than
// kept for the next file.
func (b *lineBuf) reset() {
	if cap(b.text) > maxSlotBytes {
		b.text, b.recs = nil, nil
		return
	}
	b.text, b.recs = b.text[:0], b.recs[:0]
}
