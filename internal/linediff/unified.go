package linediff

import (
	"fmt"
	"strings"
)

// Change is a run of lines a[A0:A1] replaced by b[B0:B1] (0-based, half
// open; an empty side is an insertion or a deletion).
type Change struct{ A0, A1, B0, B1 int }

// Hunk is a group of changes close enough to share context, with the
// context included in its ranges.
type Hunk struct {
	A0, A1, B0, B1 int
	Changes        []Change
}

// Diff returns the changes that turn a into b, in order.
func Diff(a, b []string) []Change {
	var out []Change
	i, j := 0, 0
	for _, p := range append(matchLines(a, b), pair{len(a), len(b)}) {
		if p.a > i || p.b > j {
			out = append(out, Change{i, p.a, j, p.b})
		}
		i, j = p.a+1, p.b+1
	}
	return out
}

// Group gathers changes into hunks with ctx lines of context around each,
// merging changes whose contexts would touch. na is the length of a.
func Group(na int, cs []Change, ctx int) []Hunk {
	var out []Hunk
	for _, c := range cs {
		if n := len(out); n > 0 && c.A0-out[n-1].A1 <= ctx {
			h := &out[n-1]
			h.Changes = append(h.Changes, c)
			end := min(na, c.A1+ctx)
			h.B1 = c.B1 + (end - c.A1)
			h.A1 = end
			continue
		}
		start := max(0, c.A0-ctx)
		end := min(na, c.A1+ctx)
		out = append(out, Hunk{
			A0: start, A1: end,
			B0: c.B0 - (c.A0 - start), B1: c.B1 + (end - c.A1),
			Changes: []Change{c},
		})
	}
	return out
}

// Options shape a unified diff.
type Options struct {
	// Context is the number of unchanged lines around each change (3 in
	// diff -u and git).
	Context int
	// StripCR drops a "\r" before each line end, for display: the diff
	// of a CRLF file then reads cleanly. Leave it off for a diff that
	// patch must apply.
	StripCR bool
	// MaxBytes, when positive, stops the diff at the last whole line
	// within this many bytes.
	MaxBytes int
}

// Unified renders cs (from [Diff] of a and b) as a unified diff under the
// names from and to. A last line without a newline gets the usual marker.
// cut reports that MaxBytes stopped it early.
func Unified(from, to string, a, b []string, cs []Change, o Options) (diff string, cut bool) {
	var sb strings.Builder
	fmt.Fprintf(&sb, "--- %s\n+++ %s\n", from, to)
	line := func(prefix byte, l string) {
		sb.WriteByte(prefix)
		body := strings.TrimSuffix(l, "\n")
		if o.StripCR {
			body = strings.TrimSuffix(body, "\r")
		}
		sb.WriteString(body)
		sb.WriteByte('\n')
		if !strings.HasSuffix(l, "\n") {
			sb.WriteString("\\ No newline at end of file\n")
		}
	}
	for _, h := range Group(len(a), cs, o.Context) {
		fmt.Fprintf(&sb, "@@ -%s +%s @@\n", span(h.A0, h.A1), span(h.B0, h.B1))
		i := h.A0
		for _, c := range h.Changes {
			for ; i < c.A0; i++ {
				line(' ', a[i])
			}
			for k := c.A0; k < c.A1; k++ {
				line('-', a[k])
			}
			for k := c.B0; k < c.B1; k++ {
				line('+', b[k])
			}
			i = c.A1
		}
		for ; i < h.A1; i++ {
			line(' ', a[i])
		}
		if o.MaxBytes > 0 && sb.Len() > o.MaxBytes {
			break
		}
	}
	out := sb.String()
	if o.MaxBytes > 0 && len(out) > o.MaxBytes {
		return out[:strings.LastIndexByte(out[:o.MaxBytes], '\n')+1], true
	}
	return out, false
}

// span is one side of a hunk header as diff -u writes it: "start,count"
// with a 1-based start, "start" alone for one line, and the line before
// the range for an empty side.
func span(from, to int) string {
	switch to - from {
	case 0:
		return fmt.Sprintf("%d,0", from)
	case 1:
		return fmt.Sprintf("%d", from+1)
	}
	return fmt.Sprintf("%d,%d", from+1, to-from)
}
