package linematch

// pairFinder finds an ASCII literal in any letter case by two of its
// bytes at once: the two rarest (either case), checked together 32
// positions a step with vector instructions (foldpair_amd64.s). A single
// rare letter in both cases is common in code (x and X for "context
// deadline" stop a scan every 70 bytes of Go); two of them together
// rarely are, so nearly every stop is a match. It serves literals without
// k and s (whose variants are not ASCII; foldFinder handles those) where
// the vector loop can run; hand-written because Go's bytes package has
// no search by a pair of bytes or in folded case.
type pairFinder struct {
	lower  []byte // the literal in lower case
	a1, a2 int    // offsets of the two bytes, a1 < a2
	c1, c2 byte   // the bytes, in lower case
	m1, m2 byte   // 0x20 where the byte is a letter: OR-ing it folds case
	last   lastScan
}

// newPairFinder returns a pairFinder for the ASCII literal s, or nil when
// it does not serve s.
func newPairFinder(s string) *pairFinder {
	if !haveFoldPair || len(s) < 2 {
		return nil
	}
	f := &pairFinder{lower: []byte(s)}
	f.reset()
	for i, c := range f.lower {
		f.lower[i] = lowerASCII(c)
		if specialFold[f.lower[i]] {
			return nil
		}
	}
	rank := func(c byte) int { return max(int(byteRank[c]), int(byteRank[upperASCII(c)])) }
	first, second := -1, -1
	for i, c := range f.lower {
		switch {
		case first < 0 || rank(c) < rank(f.lower[first]):
			first, second = i, first
		case second < 0 || rank(c) < rank(f.lower[second]):
			second = i
		}
	}
	f.a1, f.a2 = min(first, second), max(first, second)
	f.c1, f.c2 = f.lower[f.a1], f.lower[f.a2]
	f.m1, f.m2 = foldMask(f.c1), foldMask(f.c2)
	return f
}

func foldMask(c byte) byte {
	if 'a' <= c && c <= 'z' {
		return 0x20
	}
	return 0
}

func (f *pairFinder) reset()        { f.last.forget() }
func (f *pairFinder) clone() finder { g := *f; g.reset(); return &g }

func (f *pairFinder) find(data []byte, from int) (int, bool) {
	if f.last.answers(from) {
		return f.last.next, true
	}
	return f.last.keep(from, f.scan(data, from), true)
}

func (f *pairFinder) scan(data []byte, from int) int {
	n := len(f.lower)
	// b[i] is the first byte of the pair for a match starting at from+i;
	// b ends where the second byte of the last possible match is.
	lo, hi := from+f.a1, len(data)-(n-1-f.a2)
	if lo >= hi {
		return -1
	}
	b := data[lo:hi]
	for p := 0; ; {
		k := indexFoldPair(b[p:], f.a2-f.a1, f.c1, f.m1, f.c2, f.m2)
		if k < 0 {
			return -1
		}
		s := from + p + k
		if equalFoldASCII(data[s:s+n], f.lower) {
			return s
		}
		p += k + 1
	}
}

// indexFoldPair returns the first i with b[i]|m1 == c1 and
// b[i+off]|m2 == c2, or -1.
func indexFoldPair(b []byte, off int, c1, m1, c2, m2 byte) int {
	i := 0
	if haveFoldPair && len(b) >= off+32 {
		r := foldPairAVX2(b, off, c1, m1, c2, m2)
		if r >= 0 {
			return r
		}
		i = ^r
	}
	for ; i+off < len(b); i++ {
		if b[i]|m1 == c1 && b[i+off]|m2 == c2 {
			return i
		}
	}
	return -1
}
