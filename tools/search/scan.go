package search

import (
	"bytes"
	"context"
	"errors"
	"sync"

	"github.com/indusagi/induscode/internal/linematch"
	"github.com/indusagi/induscode/internal/walk"
)

// outputMode is what grep reports.
type outputMode uint8

// The output modes. The set is closed (TestOutputModesHandled).
const (
	modeFiles   outputMode = iota // files_with_matches: the paths of matching files
	modeContent                   // content: matching lines, with context
	modeCount                     // count: matching lines per file
)

var outputModes = []outputMode{modeFiles, modeContent, modeCount}

func (m outputMode) String() string {
	switch m {
	case modeFiles:
		return "files_with_matches"
	case modeContent:
		return "content"
	case modeCount:
		return "count"
	}
	return "unknown"
}

// shownLine is a line grep shows: a match or context around one.
type shownLine struct {
	num   int    // 1-based line number
	text  string // clipped, without the line break
	match bool
}

// fileHit is what one matching file contributes.
type fileHit struct {
	path  string // absolute
	rel   string // as shown: relative to the working directory
	count int    // matching lines (all of them in count mode)
	lines []shownLine
	cut   bool // content mode: stopped at the keep limit; more lines exist
}

// scanOptions say what a scanner collects.
type scanOptions struct {
	mode          outputMode
	before, after int
	// keep bounds the lines kept per file in content mode (0: all): no
	// file can show more than the page's end, so scanning stops there.
	keep int
	// bufSize and maxLine override readBufferSize and maxLineBuffer, so
	// tests can put chunk boundaries anywhere.
	bufSize, maxLine int
	// shortReadEnds: a read that returns less than asked is at the end
	// of the file (see shortReadEnds).
	shortReadEnds bool
}

// errBinary marks a file skipped because it holds a NUL byte, the test
// ripgrep and git use for "binary".
var errBinary = errors.New("binary file")

// errTooLarge marks a file too large for multiline search.
var errTooLarge = errors.New("file too large for multiline search")

// lineSink receives the lines a scan shows, in file order. text is only
// valid during the call. It returns false to stop the scan of this file.
type lineSink interface {
	addLine(num int, text []byte, match bool) bool
}

// scanner searches files for one worker; it owns the read buffer that all
// of the worker's files pass through.
type scanner struct {
	q    *linematch.Query
	m    *linematch.Matcher
	opts scanOptions
	buf  []byte
	clip []byte // scratch for a clipped line
	// sink receives shown lines; nil collects them in fileHit.lines.
	sink lineSink
	// split counts lines longer than maxLine, searched in pieces.
	split int

	// per-file state
	hit     *fileHit
	nlines  int  // lines shown
	stopped bool // the sink asked to stop
	shown   int  // offset just past the last shown line; context stops there
	owed    int  // after-context lines still to show
	lineNo  int  // number of the line that starts at lnPos
	lnPos   int
	lastEnd int  // end of the last matching line found by searchLines
	inLong  bool // the buffer starts inside a line longer than maxLine
	readErr error

	// spare is the hit a caller that keeps only matching files' hits
	// passes to scanFile, so that a file without a match allocates none.
	spare fileHit
}

func newScanner(q *linematch.Query, opts scanOptions) *scanner {
	if opts.bufSize <= 0 {
		opts.bufSize = readBufferSize
	}
	if opts.maxLine <= 0 {
		opts.maxLine = maxLineBuffer
	}
	var buf []byte
	if opts.bufSize == readBufferSize {
		buf = *readBuffers.Get().(*[]byte)
	}
	if len(buf) != opts.bufSize {
		buf = make([]byte, opts.bufSize)
	}
	return &scanner{q: q, m: q.Matcher(), opts: opts, buf: buf}
}

// readBuffers holds the read buffers of finished scanners. A process that
// serves many searches (serve) would otherwise allocate one per worker
// per search; on the small heap of a calm server that garbage is what
// sets the collector off, about once a search.
var readBuffers = sync.Pool{New: func() any { return new([]byte) }}

// release gives the scanner's read buffer to the next scanner, unless it
// grew; s is not used after.
func (s *scanner) release() {
	if len(s.buf) == readBufferSize {
		b := s.buf
		readBuffers.Put(&b)
	}
	s.buf = nil
}

// scanFile searches one file, and releases it (see walk.File). It
// reports whether the file matched; hit
// is filled when it did. errBinary and errTooLarge say why a file was
// skipped; other errors are I/O failures.
func (s *scanner) scanFile(ctx context.Context, file walk.File, hit *fileHit) (bool, error) {
	f, err := openRead(file)
	if err != nil {
		return false, err
	}
	defer f.Close()
	defer s.shrink()
	*hit = fileHit{path: file.Path}
	s.hit, s.shown, s.owed, s.lineNo, s.lnPos = hit, 0, 0, 1, 0
	s.nlines, s.stopped, s.readErr, s.inLong = 0, false, nil, false
	if s.q.Multiline() {
		return s.scanWhole(f)
	}
	n, scan := 0, 0
	eof := false
	for {
		start := n
		for n < len(s.buf) && !eof {
			want := len(s.buf) - n
			k, err := f.Read(s.buf[n:])
			if err != nil {
				return false, err
			}
			// Where a short read means the end (shortReadEnds), the
			// read that would return nothing is not made.
			if k == 0 || k < want && s.opts.shortReadEnds {
				eof = true
			}
			n += k
		}
		if bytes.IndexByte(s.buf[start:n], 0) >= 0 {
			return false, errBinary
		}
		limit := n
		cut := false // limit splits a line longer than maxLine
		if !eof {
			nl := bytes.LastIndexByte(s.buf[scan:n], '\n')
			if nl < 0 && len(s.buf) < s.opts.maxLine {
				s.growFor(f)
				continue
			}
			if nl >= 0 {
				limit = scan + nl + 1
				s.inLong = false
			} else {
				cut = true
				if !s.inLong {
					s.split++
				}
				s.inLong = true
			}
		}
		s.lastEnd = -1
		done, err := s.searchLines(s.buf[:limit], scan)
		if done || err != nil {
			return hit.count > 0, err
		}
		// The piece of an overlong line that matched is counted once: the
		// rest of that line is not searched again.
		skipRest := cut && s.lastEnd == limit
		if eof && limit == n {
			return hit.count > 0, nil
		}
		if err := ctx.Err(); err != nil {
			return false, err
		}
		keep := s.carryFrom(limit)
		if s.opts.mode == modeContent {
			s.lineAt(keep)
			s.lnPos = 0
		}
		copy(s.buf, s.buf[keep:n])
		n -= keep
		scan = limit - keep
		s.shown = max(s.shown-keep, 0)
		if skipRest {
			if !s.skipLineRest(f, &n, &eof) {
				return hit.count > 0, nil
			}
			if err := s.readErr; err != nil {
				return false, err
			}
		}
	}
}

// skipLineRest reads on past the end of an overlong line that already
// matched and leaves the buffer holding what follows its line break, with
// the line count advanced over it. It reports false at end of file.
func (s *scanner) skipLineRest(f rawFile, n *int, eof *bool) bool {
	for {
		if i := bytes.IndexByte(s.buf[:*n], '\n'); i >= 0 {
			s.lineNo++
			copy(s.buf, s.buf[i+1:*n])
			*n -= i + 1
			s.lnPos, s.shown, s.inLong = 0, 0, false
			return true
		}
		if *eof {
			return false
		}
		k, err := f.Read(s.buf)
		if err != nil {
			s.readErr = err
			return true
		}
		*n = k
		*eof = k == 0
		if bytes.IndexByte(s.buf[:k], 0) >= 0 {
			s.readErr = errBinary
			return true
		}
	}
}

// growFor grows the buffer to fit a long line of f: to the whole file at
// once (up to the line limit) when doubling would not hold it, so a line
// of megabytes costs one allocation and copy, not one per doubling. The
// size is asked for only here, when a chunk holds no line break, which
// few files cause.
func (s *scanner) growFor(f rawFile) {
	n := min(2*len(s.buf), s.opts.maxLine)
	if size := f.size(); size >= int64(n) {
		n = int(min((size+4096)&^4095, int64(s.opts.maxLine)))
	}
	s.resize(n)
}

// carryFrom returns where the part of the buffer kept for the next chunk
// starts: at limit, or earlier to keep the lines that before-context of
// the next chunk's first match may show.
func (s *scanner) carryFrom(limit int) int {
	keep := limit
	if s.opts.mode != modeContent || limit == 0 || s.buf[limit-1] != '\n' {
		// No context to keep, or limit split an overlong line: keeping
		// lines before it could leave no room to read on.
		return keep
	}
	for i := 0; i < s.opts.before && keep > s.shown; i++ {
		keep = bytes.LastIndexByte(s.buf[s.shown:keep-1], '\n') + 1 + s.shown
	}
	return keep
}

// searchLines searches the whole lines of data from offset scan. done
// means the file needs no more searching.
func (s *scanner) searchLines(data []byte, scan int) (done bool, err error) {
	s.m.Reset()
	for pos := scan; pos < len(data); {
		ls, le, ok := s.m.Next(data, pos)
		if !ok {
			break
		}
		s.hit.count++
		s.lastEnd = le
		switch s.opts.mode {
		case modeFiles:
			return true, nil
		case modeContent:
			if s.showMatch(data, ls, le) {
				return true, nil
			}
		}
		pos = le + 1
	}
	if s.opts.mode == modeContent {
		s.showAfter(data, len(data))
	}
	return false, nil
}

// showMatch records the matching lines from ls to le (one line, or
// several for a multiline match; le is the end of the last) with their
// context. It reports whether the file's keep limit is reached.
func (s *scanner) showMatch(data []byte, ls, le int) bool {
	s.showAfter(data, ls)
	// Before-context: up to `before` lines above ls, not above what is
	// already shown.
	b := ls
	for i := 0; i < s.opts.before && b > s.shown; i++ {
		b = bytes.LastIndexByte(data[s.shown:b-1], '\n') + 1 + s.shown
	}
	for b < ls {
		e := b + bytes.IndexByte(data[b:ls], '\n')
		s.addLine(data, b, e, false)
		b = e + 1
	}
	for b = ls; ; {
		e := le
		if i := bytes.IndexByte(data[b:le], '\n'); i >= 0 {
			e = b + i
		}
		s.addLine(data, b, e, true)
		if e >= le {
			break
		}
		b = e + 1
	}
	s.shown = min(le+1, len(data))
	s.owed = s.opts.after
	return s.stopped || s.opts.keep > 0 && s.nlines > s.opts.keep
}

// showAfter records owed after-context lines that start before limit.
func (s *scanner) showAfter(data []byte, limit int) {
	for s.owed > 0 && s.shown < limit {
		e := len(data)
		if i := bytes.IndexByte(data[s.shown:], '\n'); i >= 0 {
			e = s.shown + i
		}
		s.addLine(data, s.shown, e, false)
		s.shown = min(e+1, len(data))
		s.owed--
		if s.shown == len(data) {
			break
		}
	}
}

// addLine hands a shown line to the sink. Lines are added in file order,
// so the line count advances monotonically.
func (s *scanner) addLine(data []byte, start, end int, match bool) {
	if s.stopped {
		return
	}
	line := data[start:end]
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	if len(line) > MaxLineChars {
		at := -1
		if match {
			if loc := s.q.Regexp().FindIndex(line); loc != nil {
				at = loc[0]
			}
		}
		s.clip = appendClipped(s.clip[:0], line, at)
		line = s.clip
	}
	num := s.lineAt(start)
	s.nlines++
	if s.opts.keep > 0 && s.nlines > s.opts.keep {
		s.hit.cut = true
	}
	if s.sink == nil {
		s.hit.lines = append(s.hit.lines, shownLine{num: num, text: string(line), match: match})
		return
	}
	if !s.sink.addLine(num, line, match) {
		s.stopped = true
	}
}

// lineAt returns the number of the line starting at off, counting
// newlines since the last call (offsets only grow within a buffer).
func (s *scanner) lineAt(off int) int {
	if off > s.lnPos {
		s.lineNo += bytes.Count(s.buf[s.lnPos:off], []byte{'\n'})
		s.lnPos = off
	}
	return s.lineNo
}

// scanWhole is multiline search: the file is read whole (up to
// maxMultilineFile) and the pattern runs over all of it.
func (s *scanner) scanWhole(f rawFile) (bool, error) {
	n := 0
	for {
		if n == len(s.buf) {
			if len(s.buf) >= maxMultilineFile {
				return false, errTooLarge
			}
			s.grow2(maxMultilineFile)
		}
		k, err := f.Read(s.buf[n:])
		if err != nil {
			return false, err
		}
		if k == 0 {
			break
		}
		n += k
	}
	data := s.buf[:n]
	if bytes.IndexByte(data, 0) >= 0 {
		return false, errBinary
	}
	s.m.Reset()
	if !s.m.MayMatch(data) {
		return false, nil
	}
	if s.opts.mode == modeFiles {
		if s.q.Regexp().Match(data) {
			s.hit.count = 1
			return true, nil
		}
		return false, nil
	}
	lastEnd := -1 // end of the last line counted
	for _, loc := range s.q.Regexp().FindAllIndex(data, -1) {
		a, b := loc[0], loc[1]
		if a == len(data) && (a == 0 || data[a-1] == '\n') {
			break // an empty match after the final line break is on no line
		}
		ls := bytes.LastIndexByte(data[:a], '\n') + 1
		last := a
		if b > a {
			last = b - 1
		}
		le := len(data)
		if i := bytes.IndexByte(data[last:], '\n'); i >= 0 {
			le = last + i
		}
		if ls <= lastEnd { // overlaps lines already taken
			if le <= lastEnd {
				continue
			}
			ls = lastEnd + 1
		}
		s.hit.count += bytes.Count(data[ls:le], []byte{'\n'}) + 1
		lastEnd = le
		if s.opts.mode == modeContent && s.showMatch(data, ls, le) {
			return true, nil
		}
	}
	if s.opts.mode == modeContent {
		s.showAfter(data, len(data))
	}
	return s.hit.count > 0, nil
}

// grow2 grows the buffer geometrically up to limit for a whole-file read.
func (s *scanner) grow2(limit int) { s.resize(min(2*len(s.buf), limit)) }

// resize replaces the buffer with one of n bytes holding what it held.
func (s *scanner) resize(n int) {
	nb := make([]byte, n)
	copy(nb, s.buf)
	s.buf = nb
}

// shrink drops a buffer grown far for one file, so a worker does not keep
// tens of megabytes for the rest of the walk; a buffer grown a little is
// kept, as files with long lines tend to come in groups.
func (s *scanner) shrink() {
	if len(s.buf) > keepGrownBuffer*s.opts.bufSize {
		s.buf = make([]byte, s.opts.bufSize)
	}
}

// keepGrownBuffer is how many times its initial size a worker's buffer
// may keep after a file needed it to grow.
const keepGrownBuffer = 8
