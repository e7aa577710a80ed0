package search

import (
	"fmt"
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
	if len(line) <= MaxLineChars {
		return string(line)
	}
	total := utf8.RuneCount(line)
	if total <= MaxLineChars {
		return string(line)
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
	var sb strings.Builder
	if start > 0 {
		sb.WriteString("…")
	}
	sb.Write(line[start:end])
	fmt.Fprintf(&sb, "… [line cut: %d characters]", total)
	return sb.String()
}

// report is everything grep's output is made from.
type report struct {
	mode    outputMode
	hits    []fileHit // sorted by display path
	offset  int
	limit   int // 0: no limit
	numbers bool
	context bool // before/after context was asked for: groups are separated
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
	case modeContent:
		r.renderContent(&sb)
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

// renderContent writes matching lines as ripgrep does without headings:
// "path:line:text" for a match, "path-line-text" for context, and "--"
// between groups of lines that are not adjacent. head_limit and offset
// count lines, not separators.
func (r *report) renderContent(sb *strings.Builder) {
	if len(r.hits) == 0 {
		r.noMatches(sb)
		return
	}
	total := 0
	more := false
	for _, h := range r.hits {
		total += len(h.lines)
		more = more || h.cut
	}
	from, to := r.window(total)
	if from >= total {
		r.pastEnd(sb, total, plural(total, "line", "lines"))
		return
	}
	more = more || to < total
	idx := 0
	wrote := false
	for _, h := range r.hits {
		if idx+len(h.lines) <= from {
			idx += len(h.lines)
			continue
		}
		if idx >= to {
			break
		}
		path := h.rel
		prev := -1
		for _, l := range h.lines {
			if idx < from {
				idx++
				prev = l.num
				continue
			}
			if idx >= to {
				break
			}
			idx++
			if wrote {
				sb.WriteByte('\n')
				if r.context && prev >= 0 && l.num != prev+1 || r.context && prev < 0 {
					sb.WriteString("--\n")
				}
			}
			wrote = true
			prev = l.num
			sep := byte('-')
			if l.match {
				sep = ':'
			}
			sb.WriteString(path)
			sb.WriteByte(sep)
			if r.numbers {
				sb.WriteString(strconv.Itoa(l.num))
				sb.WriteByte(sep)
			}
			sb.WriteString(l.text)
		}
	}
	if from > 0 || more {
		fmt.Fprintf(sb, "\n[Showing lines %d-%d", from+1, to)
		if more {
			fmt.Fprintf(sb, "; more matches exist. Use offset=%d for the next page, or narrow the search with path, glob or type.]", to)
		} else {
			fmt.Fprintf(sb, " of %d.]", total)
		}
	}
}
