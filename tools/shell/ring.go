package shell

import (
	"bytes"
	"io"
	"slices"
	"sync"

	"github.com/indusagi/induscode/tools/shell/output"
)

// MaxBufferedLines is how many of the latest lines of each stream of a
// background process stay in memory. Older
// lines are only in the capture file.
const MaxBufferedLines = 2000

// MaxLineBytes cuts a longer line before it is kept in memory, so the ring
// of one stream holds at most MaxBufferedLines*MaxLineBytes (8 MiB) however
// the process writes. The capture file keeps the whole line.
const MaxLineBytes = 4096

// line is one kept line of output, without its newline.
type line struct {
	text []byte // immutable once pushed
	cut  int64  // bytes dropped from the end because the line was too long
}

// cursor marks how far a reader has read a stream: every line before
// line, and off bytes of line itself (it was still unfinished then).
type cursor struct {
	line int64
	off  int
}

// stream is one output stream of a background process: a ring of its
// latest lines, the unfinished last line, and the capture file that gets
// every byte. It is written by one goroutine and read by many.
type stream struct {
	name        string // "stdout" or "stderr"
	capture     io.WriteCloser
	capturePath string
	captureCap  int64 // the capture file's size cap (0: none)

	mu         sync.Mutex
	ring       []line // the latest lines; oldest at start once full
	start      int
	total      int64 // lines completed since the process started
	partial    []byte
	partialCut int64
	bytes      int64
	captureErr error
	eof        bool
	pos        cursor // how far the model has read

	note *notifier // told of every write and of the end; may be nil
}

func newStream(name string, capture io.WriteCloser, path string) *stream {
	return &stream{name: name, capture: capture, capturePath: path, captureCap: output.CapOf(capture)}
}

// write takes one chunk of output. Work is proportional to the chunk's
// size plus the lines that can still be read from memory: when a chunk
// holds more than MaxBufferedLines lines, the earlier ones are only
// counted, never copied.
func (s *stream) write(p []byte) {
	// The ring first, and the readers told: what the process printed is
	// readable as soon as it left the pipe, however long the capture
	// file's disk takes (a busy disk stalls a write for seconds).
	s.keep(p)
	s.note.fire()
	if s.capture != nil {
		if _, err := s.capture.Write(p); err != nil {
			s.capture.Close()
			s.capture = nil
			s.mu.Lock()
			if s.captureErr == nil {
				s.captureErr = err
			}
			s.mu.Unlock()
		}
	}
}

// keep adds p to the ring and the unfinished line.
func (s *stream) keep(p []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.bytes += int64(len(p))
	n := bytes.Count(p, []byte{'\n'})
	if n == 0 {
		s.extend(p)
		return
	}
	if skip := n - MaxBufferedLines; skip > 0 {
		// Lines 0..skip-1 of the chunk would be pushed out of the ring by
		// later lines of the same chunk: count them and start at line skip,
		// which follows the (MaxBufferedLines+1)-th newline from the end.
		at := len(p)
		for range MaxBufferedLines + 1 {
			at = bytes.LastIndexByte(p[:at], '\n')
		}
		s.partial, s.partialCut = nil, 0
		s.total += int64(skip)
		p = p[at+1:]
	} else {
		i := bytes.IndexByte(p, '\n')
		s.extend(p[:i])
		s.push(line{text: s.partial, cut: s.partialCut})
		s.partial, s.partialCut = nil, 0
		p = p[i+1:]
	}
	s.extend(s.pushLines(p))
}

// extend appends b to the unfinished line, up to MaxLineBytes.
func (s *stream) extend(b []byte) {
	keep := min(len(b), MaxLineBytes-len(s.partial))
	s.partial = append(s.partial, b[:keep]...)
	s.partialCut += int64(len(b) - keep)
}

// pushLines pushes every complete line of b, copied into one buffer with
// each line cut to MaxLineBytes, and returns the unfinished rest.
func (s *stream) pushLines(b []byte) (rest []byte) {
	last := bytes.LastIndexByte(b, '\n')
	if last < 0 {
		return b
	}
	body := b[:last+1]
	size := 0
	for rem := body; len(rem) > 0; {
		i := bytes.IndexByte(rem, '\n')
		size += min(i, MaxLineBytes)
		rem = rem[i+1:]
	}
	buf := make([]byte, 0, size)
	for rem := body; len(rem) > 0; {
		i := bytes.IndexByte(rem, '\n')
		keep := min(i, MaxLineBytes)
		off := len(buf)
		buf = append(buf, rem[:keep]...)
		s.push(line{text: buf[off:len(buf):len(buf)], cut: int64(i - keep)})
		rem = rem[i+1:]
	}
	return b[last+1:]
}

func (s *stream) push(l line) {
	if len(s.ring) < MaxBufferedLines {
		s.ring = append(s.ring, l)
	} else {
		s.ring[s.start] = l
		s.start = (s.start + 1) % MaxBufferedLines
	}
	s.total++
}

// close marks the end of the stream: an unfinished last line becomes a
// line, and the capture file is closed.
func (s *stream) close() {
	defer s.note.fire()
	s.mu.Lock()
	if len(s.partial) > 0 || s.partialCut > 0 {
		s.push(line{text: s.partial, cut: s.partialCut})
		s.partial, s.partialCut = nil, 0
	}
	s.eof = true
	c := s.capture
	s.capture = nil
	s.mu.Unlock()
	if c != nil {
		if err := c.Close(); err != nil {
			s.mu.Lock()
			if s.captureErr == nil {
				s.captureErr = err
			}
			s.mu.Unlock()
		}
	}
}

// unread is what a reader has not seen yet.
type unread struct {
	lines   []line // complete lines, oldest first; the first may be a continuation
	pending []byte // the new part of the unfinished last line (a copy)
	dropped int64  // lines that left memory before they were read
}

// readNew returns what is new since the last read and moves the read
// position to the end.
func (s *stream) readNew() unread {
	s.mu.Lock()
	defer s.mu.Unlock()
	var u unread
	c := s.pos
	first := s.total - int64(len(s.ring))
	if c.line < first {
		u.dropped = first - c.line
		c = cursor{line: first}
	}
	for i := c.line; i < s.total; i++ {
		l := s.ring[(s.start+int(i-first))%len(s.ring)]
		if i == c.line && c.off > 0 {
			l.text = l.text[min(c.off, len(l.text)):]
		}
		u.lines = append(u.lines, l)
	}
	off := 0
	if c.line == s.total {
		off = c.off
	}
	if off < len(s.partial) {
		u.pending = bytes.Clone(s.partial[off:])
	}
	s.pos = cursor{line: s.total, off: len(s.partial)}
	return u
}

// stats reports the stream's totals.
func (s *stream) stats() (bytesOut, lines int64, captureErr error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	lines = s.total
	if len(s.partial) > 0 {
		lines++
	}
	return s.bytes, lines, s.captureErr
}

// end returns the position after everything written so far.
func (s *stream) end() cursor {
	s.mu.Lock()
	defer s.mu.Unlock()
	return cursor{line: s.total, off: len(s.partial)}
}

// since returns the text written after c, at most the last limit bytes of
// it (lines joined with newlines, the unfinished last line included),
// without moving the read position: what a wait matches its pattern
// against.
func (s *stream) since(c cursor, limit int) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	first := s.total - int64(len(s.ring))
	if c.line < first {
		c = cursor{line: first}
	}
	var parts [][]byte
	size := len(s.partial)
	if c.line == s.total {
		return string(s.partial[min(c.off, len(s.partial)):])
	}
	// Newest first, until the limit.
	parts = append(parts, s.partial)
	for i := s.total - 1; i >= c.line && size < limit; i-- {
		t := s.ring[(s.start+int(i-first))%len(s.ring)].text
		if i == c.line {
			t = t[min(c.off, len(t)):]
		}
		parts = append(parts, t)
		size += len(t) + 1
	}
	slices.Reverse(parts)
	b := bytes.Join(parts, []byte{'\n'})
	if len(b) > limit {
		b = b[len(b)-limit:]
	}
	return string(b)
}

// captureName is the capture file's path for notices.
func (s *stream) captureName() string {
	if s.capturePath == "" {
		return "(no capture file)"
	}
	return s.capturePath
}

// readPos returns the model's read position.
func (s *stream) readPos() cursor {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pos
}
