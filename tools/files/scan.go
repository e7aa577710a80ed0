package files

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"hash"
	"io"
	"strconv"
	"sync"
	"unicode/utf8"
)

// scan is what one pass over a text file found: the numbered lines of the
// requested window, the file's line count, size and hash.
type scan struct {
	out    []byte // the numbered lines shown, each ending in '\n'
	first  int    // number of the first line shown; 0 when none was
	last   int    // number of the last line shown
	total  int    // lines in the file (a last line without '\n' counts)
	capped bool   // output stopped at MaxReadBytes before limit lines
	size   int64
	hash   [sha256.Size]byte
}

// hashCounter hashes and counts what passes through it.
type hashCounter struct {
	h hash.Hash
	n int64
}

func (c *hashCounter) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	return c.h.Write(p)
}

// readers recycles read's streaming buffers: a fresh 256 KiB buffer per
// call was most of what reading a small file cost (allocation and the GC
// work behind it), measured through indusr serve.
var readers = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, readBufferSize) }}

// scanText streams r once: it skips to line offset, formats up to limit
// lines (stopping before the output passes MaxReadBytes), then counts the
// rest. Memory is one buffer plus the output, whatever the file's size; the
// bytes before and after the window are handled a buffer at a time with
// bytes.Count, never line by line. Every byte passes through SHA-256 for the
// read-before-edit gate.
func scanText(ctx context.Context, r io.Reader, offset, limit int) (*scan, error) {
	hc := &hashCounter{h: sha256.New()}
	var br *bufio.Reader
	if b, ok := r.(*bytes.Reader); ok && b.Len() < readBufferSize {
		// The whole text is in memory already (a small file): a buffer of
		// its size, not a pooled 256 KiB one, which the collector empties
		// the pool of often enough under indusr serve to cost a fresh
		// allocation on most calls.
		br = bufio.NewReaderSize(io.TeeReader(r, hc), b.Len()+1)
	} else {
		br = readers.Get().(*bufio.Reader)
		br.Reset(io.TeeReader(r, hc))
		defer func() {
			br.Reset(nil) // drop the file before the buffer is reused
			readers.Put(br)
		}()
	}
	s := &scan{}
	newlines := 0    // '\n' bytes consumed so far
	partial := false // bytes consumed since the last '\n'

	// Skip the lines before offset.
	for newlines < offset-1 {
		chunk, err := fill(br)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		need := offset - 1 - newlines
		if c := bytes.Count(chunk, []byte{'\n'}); c < need {
			newlines += c
			partial = chunk[len(chunk)-1] != '\n'
			br.Discard(len(chunk))
		} else {
			pos := nthNewline(chunk, need)
			newlines += need
			partial = false
			br.Discard(pos + 1)
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}

	// The window, line by line.
	if newlines == offset-1 {
		keep := MaxLineChars*utf8.UTFMax + 2 // enough for MaxLineChars runes and "\r\n"
		buf := make([]byte, 0, 256)
		for shown := 0; shown < limit; shown++ {
			var n int
			var ended bool
			var err error
			buf, n, ended, err = nextLine(br, buf, keep)
			if err != nil && err != io.EOF {
				return nil, err
			}
			if n == 0 && !ended {
				break
			}
			if ended {
				newlines++
			} else {
				partial = true
			}
			line := newlines
			if !ended {
				line++
			}
			start := len(s.out)
			s.out = appendLine(s.out, line, buf, n)
			if len(s.out) > MaxReadBytes && shown > 0 {
				s.out = s.out[:start]
				s.capped = true
				break
			}
			if s.first == 0 {
				s.first = line
			}
			s.last = line
			if err == io.EOF {
				break
			}
		}
	}

	// Count the rest.
	for {
		chunk, err := fill(br)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		newlines += bytes.Count(chunk, []byte{'\n'})
		partial = chunk[len(chunk)-1] != '\n'
		br.Discard(len(chunk))
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	s.total = newlines
	if partial {
		s.total++
	}
	s.size = hc.n
	copy(s.hash[:], hc.h.Sum(nil))
	return s, nil
}

// fill returns every byte buffered in br, reading more first when none is.
func fill(br *bufio.Reader) ([]byte, error) {
	if _, err := br.Peek(1); err != nil {
		return nil, err
	}
	return br.Peek(br.Buffered())
}

// nthNewline returns the index of the n-th '\n' in b (n >= 1), which the
// caller knows is there.
func nthNewline(b []byte, n int) int {
	pos := -1
	for ; n > 0; n-- {
		i := bytes.IndexByte(b[pos+1:], '\n')
		if i < 0 {
			return len(b) - 1
		}
		pos += i + 1
	}
	return pos
}

// nextLine reads one line, its line end included, keeping at most keep
// bytes of it in buf (reused). It returns the length of the line's text
// without its line end, and whether a '\n' ended it. A line longer than the
// reader's buffer arrives in fragments; only the kept part is stored.
func nextLine(br *bufio.Reader, buf []byte, keep int) (kept []byte, n int, ended bool, err error) {
	buf = buf[:0]
	var prev byte // last byte of the previous fragment
	for {
		frag, err := br.ReadSlice('\n')
		n += len(frag)
		if room := keep - len(buf); room > 0 {
			buf = append(buf, frag[:min(room, len(frag))]...)
		}
		switch {
		case err == nil:
			n-- // the '\n'
			if (len(frag) >= 2 && frag[len(frag)-2] == '\r') || (len(frag) == 1 && prev == '\r') {
				n--
			}
			return buf, n, true, nil
		case errors.Is(err, bufio.ErrBufferFull):
			if len(frag) > 0 {
				prev = frag[len(frag)-1]
			}
			continue
		default:
			return buf, n, false, err
		}
	}
}

var bom = []byte{0xef, 0xbb, 0xbf}

// appendLine formats one line as read shows it: the number right-aligned
// in six columns, a tab, the text without its line end (and line 1 without
// a UTF-8 byte-order mark), cut after MaxLineChars characters with a marker
// saying so. n is the length in bytes of the line's whole text; when line
// holds less, the rest was dropped while reading.
func appendLine(dst []byte, number int, line []byte, n int) []byte {
	if l, ok := bytes.CutSuffix(line, []byte{'\n'}); ok {
		line = bytes.TrimSuffix(l, []byte{'\r'})
	}
	cut := len(line) < n
	if number == 1 {
		line = bytes.TrimPrefix(line, bom)
	}
	if i, ok := runeIndex(line, MaxLineChars); ok {
		line, cut = line[:i], true
	}
	num := strconv.Itoa(number)
	for pad := 6 - len(num); pad > 0; pad-- {
		dst = append(dst, ' ')
	}
	dst = append(dst, num...)
	dst = append(dst, '\t')
	dst = append(dst, line...)
	if cut {
		dst = append(dst, " [… line cut at "...)
		dst = strconv.AppendInt(dst, MaxLineChars, 10)
		dst = append(dst, " characters; it is "...)
		dst = strconv.AppendInt(dst, int64(n), 10)
		dst = append(dst, " bytes long]"...)
	}
	return append(dst, '\n')
}

// runeIndex returns the byte index just after the first max runes of b,
// and whether b has more than max runes.
func runeIndex(b []byte, max int) (int, bool) {
	if len(b) <= max {
		return len(b), false
	}
	i := 0
	for count := 0; i < len(b); count++ {
		if count == max {
			return i, true
		}
		if b[i] < utf8.RuneSelf {
			i++
			continue
		}
		_, size := utf8.DecodeRune(b[i:])
		i += size
	}
	return i, false
}
