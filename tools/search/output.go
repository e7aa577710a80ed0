package search

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// clipContext is how much of a long line is kept before its match when
// the line is clipped: enough to see what leads up to it.
const clipContext = 100

// clipLine renders a line for output: without a trailing '\r', and cut
// to MaxLineChars characters with a marker saying how long it was. at is
// the byte offset of the match in the line (-1: unknown); a match far into
// a long line stays visible.
func clipLine(line []byte, at int) string {
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	return string(appendClipped(nil, line, at))
}

// appendClipped appends line (without its '\r') to dst, clipped as
// clipLine says.
func appendClipped(dst, line []byte, at int) []byte {
	if len(line) <= MaxLineChars {
		return append(dst, line...)
	}
	total := utf8.RuneCount(line)
	if total <= MaxLineChars {
		return append(dst, line...)
	}
	start := 0
	if at > 0 && utf8.RuneCount(line[:at]) > MaxLineChars-clipContext {
		start = at - clipContext
		for start > 0 && !utf8.RuneStart(line[start]) {
			start--
		}
	}
	end, n := start, 0
	for end < len(line) && n < MaxLineChars {
		_, size := utf8.DecodeRune(line[end:])
		end += size
		n++
	}
	if start > 0 {
		dst = append(dst, "…"...)
	}
	dst = append(dst, line[start:end]...)
	return fmt.Appendf(dst, "… [line cut: %d characters]", total)
}

// report is everything grep's output is made from.
type report struct {
	mode    outputMode
	hits    []fileHit // sorted by display path
	offset  int
	limit   int // 0: no limit
	numbers bool
	pattern string
	where   string   // the searched path as the user gave it
	notices []string // partial results, unreadable paths, …
}

// render builds grep's text output.
func (r *report) render() string {
	var sb strings.Builder
	switch r.mode {
	case modeFiles:
		r.renderFiles(&sb)
	case modeCount:
		r.renderCount(&sb)
	case modeContent: // streamed by contentWriter
	}
	for _, n := range r.notices {
		if sb.Len() > 0 {
			sb.WriteByte('\n')
		}
		sb.WriteString(n)
	}
	return sb.String()
}

// window returns the [from, to) slice of total entries the page shows.
func (r *report) window(total int) (int, int) {
	from := min(r.offset, total)
	to := total
	if r.limit > 0 {
		to = min(total, from+r.limit)
	}
	return from, to
}

func (r *report) noMatches(sb *strings.Builder) {
	fmt.Fprintf(sb, "No matches for %q in %s.", r.pattern, r.where)
}

func (r *report) pastEnd(sb *strings.Builder, total int, what string) {
	fmt.Fprintf(sb, "No results at offset %d: the search found %d %s. Use a smaller offset.", r.offset, total, what)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func (r *report) renderFiles(sb *strings.Builder) {
	total := len(r.hits)
	if total == 0 {
		r.noMatches(sb)
		return
	}
	from, to := r.window(total)
	if from >= total {
		r.pastEnd(sb, total, plural(total, "file", "files"))
		return
	}
	fmt.Fprintf(sb, "Found %d %s", total, plural(total, "file", "files"))
	for _, h := range r.hits[from:to] {
		sb.WriteByte('\n')
		sb.WriteString(h.rel)
	}
	if from > 0 || to < total {
		fmt.Fprintf(sb, "\n[Showing files %d-%d of %d.", from+1, to, total)
		if to < total {
			fmt.Fprintf(sb, " Use offset=%d for the next page, or narrow the search with path, glob or type.", to)
		}
		sb.WriteByte(']')
	}
}

func (r *report) renderCount(sb *strings.Builder) {
	total := len(r.hits)
	if total == 0 {
		r.noMatches(sb)
		return
	}
	lines := 0
	for _, h := range r.hits {
		lines += h.count
	}
	from, to := r.window(total)
	if from >= total {
		r.pastEnd(sb, total, plural(total, "file", "files"))
		return
	}
	fmt.Fprintf(sb, "Found %d matching %s in %d %s", lines, plural(lines, "line", "lines"), total, plural(total, "file", "files"))
	for _, h := range r.hits[from:to] {
		sb.WriteByte('\n')
		sb.WriteString(h.rel)
		sb.WriteByte(':')
		sb.WriteString(strconv.Itoa(h.count))
	}
	if from > 0 || to < total {
		fmt.Fprintf(sb, "\n[Showing files %d-%d of %d.", from+1, to, total)
		if to < total {
			fmt.Fprintf(sb, " Use offset=%d for the next page.", to)
		}
		sb.WriteByte(']')
	}
}

// contentWriter writes grep's content output as lines arrive, as ripgrep
// does without headings: "path:line:text" for a match, "path-line-text"
// for context, and "--" between groups of lines that are not adjacent.
// offset and limit count lines, not separators. Every line ends with a
// line break; the footer and notices come after (text).
type contentWriter struct {
	w       io.Writer
	buf     []byte
	offset  int
	limit   int // 0: no limit
	numbers bool
	context bool // before/after context was asked for: groups are separated

	idx   int // lines seen, shown or skipped by offset
	wrote bool
	path  string // file of the previous line
	prev  int    // number of the previous line of that file, -1: none
	more  bool   // a line past the limit exists
	err   error  // the first write error
}

// contentFlush is how much output is gathered before one write.
const contentFlush = 64 << 10

// line is the emit function of a content search.
func (c *contentWriter) line(l Line) error {
	if l.Path != c.path {
		c.path, c.prev = l.Path, -1
	}
	if c.idx < c.offset {
		c.idx++
		c.prev = l.Num
		return nil
	}
	if c.limit > 0 && c.idx >= c.offset+c.limit {
		c.more = true
		return errEnough
	}
	c.idx++
	if c.wrote && c.context && (c.prev < 0 || l.Num != c.prev+1) {
		c.buf = append(c.buf, "--\n"...)
	}
	c.wrote = true
	c.prev = l.Num
	sep := byte('-')
	if l.Match {
		sep = ':'
	}
	c.buf = append(c.buf, l.Path...)
	c.buf = append(c.buf, sep)
	if c.numbers {
		c.buf = strconv.AppendInt(c.buf, int64(l.Num), 10)
		c.buf = append(c.buf, sep)
	}
	c.buf = append(c.buf, l.Text...)
	c.buf = append(c.buf, '\n')
	if len(c.buf) >= contentFlush {
		return c.flush()
	}
	return nil
}

// flush writes what is gathered; after a failed write every call fails.
func (c *contentWriter) flush() error {
	if c.err != nil || len(c.buf) == 0 {
		return c.err
	}
	if _, err := c.w.Write(c.buf); err != nil {
		c.err = fmt.Errorf("writing output: %w", err)
	}
	c.buf = c.buf[:0]
	return c.err
}

// footer is what follows the lines: the page they are, or why there are
// none. pattern and where word the no-match message.
func (c *contentWriter) footer(pattern, where string) string {
	total := c.idx
	switch {
	case total == 0:
		return fmt.Sprintf("No matches for %q in %s.", pattern, where)
	case c.offset >= total:
		return fmt.Sprintf("No results at offset %d: the search found %d %s. Use a smaller offset.", c.offset, total, plural(total, "line", "lines"))
	case c.more:
		return fmt.Sprintf("[Showing lines %d-%d; more matches exist. Use offset=%d for the next page, or narrow the search with path, glob or type.]", c.offset+1, total, total)
	case c.offset > 0:
		return fmt.Sprintf("[Showing lines %d-%d of %d.]", c.offset+1, total, total)
	}
	return ""
}
