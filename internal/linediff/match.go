// Package linediff computes line diffs and renders them as unified diffs.
// It serves the edit tool (the diff it returns to the model) and checkpoint
// rewinds (the diff shown before undoing changes).
//
// The algorithm is written here rather than taken from a library: none of
// the project's dependencies ships one. It trims the common head and tail,
// anchors the middle on lines that occur exactly once on each side (their
// longest increasing run, as in patience diff) and fills the gaps between
// anchors with an exact longest common subsequence when a gap is small. The
// cost is O(n log n) whatever the input, so a diff of two large, very
// different files cannot stall a call; on small inputs the result is a
// minimal diff.
package linediff

import (
	"sort"
	"strings"
)

// lcsCells bounds the exact longest-common-subsequence table used on the
// small gaps left between anchors (a 1 MB table of int32).
const lcsCells = 256 << 10

// pair is a line of a matched to an equal line of b (0-based).
type pair struct{ a, b int }

// Lines splits s into lines that keep their '\n', so a last line
// without one differs from the same line with one.
func Lines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// matchLines pairs equal lines of a and b in order. It trims the common
// head and tail, anchors the middle on lines that occur exactly once on
// each side (their longest increasing run, as in patience diff), and fills
// the gaps between anchors greedily, exactly when a gap is small. The cost
// is O(n log n) whatever the input, so a replace_all over a large file
// cannot stall on the diff.
func matchLines(a, b []string) []pair {
	var out []pair
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		out = append(out, pair{p, p})
		p++
	}
	s := 0
	for s < len(a)-p && s < len(b)-p && a[len(a)-1-s] == b[len(b)-1-s] {
		s++
	}
	out = append(out, anchored(a[p:len(a)-s], b[p:len(b)-s], p, p)...)
	for i := s; i > 0; i-- {
		out = append(out, pair{len(a) - i, len(b) - i})
	}
	return out
}

// anchored matches x and y, which start at offsets ox and oy.
func anchored(x, y []string, ox, oy int) []pair {
	if len(x) == 0 || len(y) == 0 {
		return nil
	}
	if len(x)*len(y) <= lcsCells {
		return lcs(x, y, ox, oy)
	}
	type count struct{ nx, ny, iy int }
	seen := make(map[string]*count, len(x))
	for _, l := range x {
		c := seen[l]
		if c == nil {
			c = &count{}
			seen[l] = c
		}
		c.nx++
	}
	for j, l := range y {
		if c := seen[l]; c != nil {
			c.ny++
			c.iy = j
		}
	}
	var cand []pair
	for i, l := range x {
		if c := seen[l]; c.nx == 1 && c.ny == 1 {
			cand = append(cand, pair{i, c.iy})
		}
	}
	var out []pair
	prevA, prevB := 0, 0
	for _, an := range append(increasing(cand), pair{len(x), len(y)}) {
		out = append(out, gap(x[prevA:an.a], y[prevB:an.b], ox+prevA, oy+prevB)...)
		if an.a < len(x) {
			out = append(out, pair{ox + an.a, oy + an.b})
		}
		prevA, prevB = an.a+1, an.b+1
	}
	return out
}

// gap matches the lines between two anchors: equal heads and tails, then
// the exact method on what is left if it is small enough.
func gap(x, y []string, ox, oy int) []pair {
	var out []pair
	p := 0
	for p < len(x) && p < len(y) && x[p] == y[p] {
		out = append(out, pair{ox + p, oy + p})
		p++
	}
	s := 0
	for s < len(x)-p && s < len(y)-p && x[len(x)-1-s] == y[len(y)-1-s] {
		s++
	}
	if mx, my := len(x)-p-s, len(y)-p-s; mx > 0 && my > 0 && mx*my <= lcsCells {
		out = append(out, lcs(x[p:len(x)-s], y[p:len(y)-s], ox+p, oy+p)...)
	}
	for i := s; i > 0; i-- {
		out = append(out, pair{ox + len(x) - i, oy + len(y) - i})
	}
	return out
}

// increasing returns the longest run of cand (sorted by a) whose b also
// increases: patience sorting with back links, O(n log n).
func increasing(cand []pair) []pair {
	if len(cand) == 0 {
		return nil
	}
	tops := []int{}                // index into cand of the top of each pile
	back := make([]int, len(cand)) // previous element of the run ending here
	for i, c := range cand {
		k := sort.Search(len(tops), func(t int) bool { return cand[tops[t]].b >= c.b })
		back[i] = -1
		if k > 0 {
			back[i] = tops[k-1]
		}
		if k == len(tops) {
			tops = append(tops, i)
		} else {
			tops[k] = i
		}
	}
	run := make([]pair, len(tops))
	for i, k := tops[len(tops)-1], len(tops)-1; k >= 0; i, k = back[i], k-1 {
		run[k] = cand[i]
	}
	return run
}

// lcs is the exact longest common subsequence of two small slices.
func lcs(x, y []string, ox, oy int) []pair {
	n, m := len(x), len(y)
	t := make([]int32, (n+1)*(m+1))
	at := func(i, j int) *int32 { return &t[i*(m+1)+j] }
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if x[i] == y[j] {
				*at(i, j) = *at(i+1, j+1) + 1
			} else {
				*at(i, j) = max(*at(i+1, j), *at(i, j+1))
			}
		}
	}
	var out []pair
	for i, j := 0, 0; i < n && j < m; {
		switch {
		case x[i] == y[j]:
			out = append(out, pair{ox + i, oy + j})
			i++
			j++
		case *at(i+1, j) >= *at(i, j+1):
			i++
		default:
			j++
		}
	}
	return out
}
