package checkpoint

import (
	"bytes"
	"fmt"
	"strings"
)

// diffContext is the number of unchanged lines shown around each change,
// the usual diff -u default.
const diffContext = 3

// maxDiffEdits bounds the Myers search (its trace grows with the square
// of the edit distance). Past it, the differing middle of the two files is
// shown as removed and added whole, which is still a correct diff.
const maxDiffEdits = 2000

// binarySniff is how much of a file is checked for NUL bytes to call it
// binary, as git does.
const binarySniff = 8000

// Unified returns a unified diff from a to b with the given file names
// ("/dev/null" for a side that does not exist), or "" when they are equal.
// Binary contents get a one-line notice instead of hunks.
func Unified(fromName, toName string, a, b []byte) string {
	if bytes.Equal(a, b) {
		return ""
	}
	if isBinary(a) || isBinary(b) {
		return fmt.Sprintf("Binary files %s and %s differ\n", fromName, toName)
	}
	al, bl := splitLines(a), splitLines(b)
	edits := diffLines(al, bl)
	var sb strings.Builder
	fmt.Fprintf(&sb, "--- %s\n+++ %s\n", fromName, toName)
	for _, h := range hunks(edits) {
		writeHunk(&sb, h, al, bl)
	}
	return sb.String()
}

func isBinary(b []byte) bool { return bytes.IndexByte(b[:min(len(b), binarySniff)], 0) >= 0 }

// splitLines splits after each newline; a last line without one is kept.
func splitLines(b []byte) []string {
	if len(b) == 0 {
		return nil
	}
	s := string(b)
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// edit is one step of a line diff: kind ' ' (same), '-' (only in a) or
// '+' (only in b), with the line's index in a or b.
type edit struct {
	kind byte
	a, b int
}

// diffLines returns the edit script from a to b: common prefix and
// suffix, and a Myers diff of the middle.
func diffLines(a, b []string) []edit {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	var out []edit
	for i := range pre {
		out = append(out, edit{' ', i, i})
	}
	out = append(out, myers(a[pre:len(a)-suf], b[pre:len(b)-suf], pre, pre)...)
	for i := range suf {
		out = append(out, edit{' ', len(a) - suf + i, len(b) - suf + i})
	}
	return out
}

// myers is the greedy O(ND) algorithm of Myers (1986), recording the
// frontier of each round to walk the path back. offA and offB shift the
// indexes it reports.
func myers(a, b []string, offA, offB int) []edit {
	n, m := len(a), len(b)
	limit := min(n+m, maxDiffEdits)
	off := limit + 1
	v := make([]int, 2*limit+3)
	var trace [][]int
	end := -1
	for d := 0; d <= limit && end < 0; d++ {
		trace = append(trace, append([]int(nil), v[off-d:off+d+1]...))
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1]
			} else {
				x = v[off+k-1] + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			v[off+k] = x
			if x >= n && y >= m {
				end = d
				break
			}
		}
	}
	if end < 0 {
		// Too different to search: all of a out, all of b in.
		out := make([]edit, 0, n+m)
		for i := range n {
			out = append(out, edit{'-', offA + i, offB})
		}
		for j := range m {
			out = append(out, edit{'+', offA + n, offB + j})
		}
		return out
	}
	var rev []edit
	x, y := n, m
	for d := end; d > 0; d-- {
		prev := trace[d] // frontier after round d-1, indexed by k+d
		k := x - y
		var pk int
		if k == -d || (k != d && prev[k-1+d] < prev[k+1+d]) {
			pk = k + 1
		} else {
			pk = k - 1
		}
		px := prev[pk+d]
		py := px - pk
		for x > px && y > py {
			x, y = x-1, y-1
			rev = append(rev, edit{' ', offA + x, offB + y})
		}
		if x == px {
			y--
			rev = append(rev, edit{'+', offA + x, offB + y})
		} else {
			x--
			rev = append(rev, edit{'-', offA + x, offB + y})
		}
	}
	for x > 0 && y > 0 {
		x, y = x-1, y-1
		rev = append(rev, edit{' ', offA + x, offB + y})
	}
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	return rev
}

// hunks cuts the edit script into runs of changes with up to diffContext
// unchanged lines around them; changes closer than twice that share a hunk.
func hunks(edits []edit) [][]edit {
	var out [][]edit
	i := 0
	for i < len(edits) {
		for i < len(edits) && edits[i].kind == ' ' {
			i++
		}
		if i == len(edits) {
			break
		}
		start := max(0, i-diffContext)
		end := i
		for end < len(edits) {
			if edits[end].kind != ' ' {
				end++
				continue
			}
			same := 0
			for end+same < len(edits) && edits[end+same].kind == ' ' {
				same++
			}
			if end+same == len(edits) || same > 2*diffContext {
				end += min(same, diffContext)
				break
			}
			end += same
		}
		out = append(out, edits[start:end])
		i = end
	}
	return out
}

func writeHunk(sb *strings.Builder, h []edit, a, b []string) {
	aStart, bStart := h[0].a, h[0].b
	var aCount, bCount int
	for _, e := range h {
		switch e.kind {
		case ' ':
			aCount++
			bCount++
		case '-':
			aCount++
		case '+':
			bCount++
		}
	}
	fmt.Fprintf(sb, "@@ -%s +%s @@\n", hunkRange(aStart, aCount), hunkRange(bStart, bCount))
	for _, e := range h {
		line := ""
		switch e.kind {
		case ' ', '-':
			line = a[e.a]
		case '+':
			line = b[e.b]
		}
		sb.WriteByte(e.kind)
		sb.WriteString(line)
		if !strings.HasSuffix(line, "\n") {
			sb.WriteString("\n\\ No newline at end of file\n")
		}
	}
}

// hunkRange formats a hunk side: start is 0-based; an empty side names the
// line before it, as diff -u does.
func hunkRange(start, count int) string {
	if count == 0 {
		return fmt.Sprintf("%d,0", start)
	}
	if count == 1 {
		return fmt.Sprintf("%d", start+1)
	}
	return fmt.Sprintf("%d,%d", start+1, count)
}
