package linematch

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"unicode/utf8"
)

// byteRank orders bytes from rare (0) to common (255) in source code and
// prose: counts over Go, C, Python, JavaScript and documentation files,
// each language weighted equally. Prefilters scan for the rarest byte of
// a literal, because a scan is only as fast as its false starts are few.
var byteRank = [256]uint8{
	0, 1, 2, 3, 4, 5, 6, 7, 8, 229, 246, 9, 57, 63, 10, 11, // 0x00
	12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, // 0x10
	255, 170, 215, 199, 156, 165, 174, 207, 231, 232, 219, 169, 233, 209, 235, 238, // 0x20
	234, 217, 206, 200, 198, 194, 195, 183, 190, 188, 221, 191, 171, 220, 178, 160, // 0x30
	162, 222, 187, 213, 203, 225, 196, 185, 180, 218, 166, 176, 214, 197, 212, 211, // 0x40
	204, 167, 216, 226, 224, 186, 179, 177, 184, 175, 158, 193, 189, 192, 151, 241, // 0x50
	182, 247, 228, 244, 243, 254, 239, 230, 237, 251, 181, 208, 245, 236, 250, 249, // 0x60
	242, 173, 248, 252, 253, 240, 210, 205, 227, 223, 172, 202, 168, 201, 81, 49, // 0x70
	154, 119, 139, 125, 114, 133, 117, 115, 140, 128, 116, 113, 121, 104, 105, 111, // 0x80
	102, 106, 98, 97, 150, 144, 135, 108, 124, 152, 99, 109, 141, 130, 107, 126, // 0x90
	138, 134, 110, 123, 145, 131, 122, 120, 127, 143, 87, 132, 93, 95, 90, 88, // 0xa0
	103, 101, 112, 92, 100, 89, 94, 96, 147, 142, 137, 136, 129, 149, 118, 148, // 0xb0
	28, 29, 146, 153, 72, 75, 60, 61, 50, 58, 54, 67, 66, 53, 77, 69, // 0xc0
	82, 74, 62, 52, 51, 64, 59, 68, 71, 70, 55, 56, 48, 44, 46, 47, // 0xd0
	80, 73, 155, 78, 86, 163, 164, 161, 159, 157, 76, 84, 91, 79, 65, 83, // 0xe0
	85, 30, 31, 32, 45, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, // 0xf0
}

// specialFold marks the ASCII letters whose case variants include a
// non-ASCII rune: K and k (KELVIN SIGN, U+212A) and S and s (LATIN SMALL
// LETTER LONG S, U+017F). TestSpecialFold derives the set from package
// unicode.
var specialFold = [utf8.RuneSelf]bool{'K': true, 'k': true, 'S': true, 's': true}

// The UTF-8 lead bytes of the two special variants; a line without them
// can be compared byte for byte in ASCII case folding.
const (
	kelvinLead = 0xE2 // U+212A is E2 84 AA
	longSLead  = 0xC5 // U+017F is C5 BF
)

// finder locates occurrences of one literal in a buffer. A finder keeps
// state between calls on the same buffer (the position of the next
// occurrence of each byte it scans for), so it belongs to one worker and
// reset must be called when the buffer changes.
type finder interface {
	reset()
	// find returns the position of the next occurrence at or after from,
	// or -1. exact is false when the finder could not confirm the
	// occurrence: then only the line that holds pos may match.
	find(data []byte, from int) (pos int, exact bool)
	clone() finder
}

// lastScan is a finder's last answer: the first occurrence at or after
// from. It answers again for any later from up to that occurrence, which
// is how a caller that moves line by line asks.
type lastScan struct {
	next  int // -2 unknown, -1 none
	from  int
	exact bool
}

func (m *lastScan) forget() { m.next = -2 }

// answers reports whether the last answer stands for from.
func (m *lastScan) answers(from int) bool {
	return m.next != -2 && from >= m.from && (m.next == -1 || m.next >= from)
}

// keep records the answer for from and returns it.
func (m *lastScan) keep(from, next int, exact bool) (int, bool) {
	m.from, m.next, m.exact = from, next, exact
	return next, exact
}

// newFinder returns a finder for l, or nil when l has no byte that every
// occurrence must contain (a case-insensitive literal of only non-ASCII
// or k/s letters).
func newFinder(l lit) finder {
	if !l.fold {
		return newExactFinder([]byte(l.s))
	}
	if isASCII(l.s) {
		if f := newPairFinder(l.s); f != nil {
			return f
		}
		return newFoldFinder(l.s)
	}
	return newHintFinder(l.s)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// exactFinder finds a byte string: it scans for the literal's rarest byte
// with bytes.IndexByte (vectorised) and compares the whole literal there.
type exactFinder struct {
	lit  []byte
	rare byte
	at   int // offset of rare in lit
	last lastScan
}

func newExactFinder(b []byte) *exactFinder {
	f := &exactFinder{lit: b}
	f.reset()
	best := 256
	for i, c := range b {
		if r := int(byteRank[c]); r < best {
			best, f.rare, f.at = r, c, i
		}
	}
	return f
}

func (f *exactFinder) reset()        { f.last.forget() }
func (f *exactFinder) clone() finder { g := *f; g.reset(); return &g }

func (f *exactFinder) find(data []byte, from int) (int, bool) {
	if f.last.answers(from) {
		return f.last.next, true
	}
	return f.last.keep(from, f.scan(data, from), true)
}

func (f *exactFinder) scan(data []byte, from int) int {
	n := len(f.lit)
	end := len(data) - (n - 1 - f.at) // last possible rare-byte position + 1
	for p := from + f.at; p < end; {
		i := bytes.IndexByte(data[p:end], f.rare)
		if i < 0 {
			return -1
		}
		s := p + i - f.at
		if bytes.Equal(data[s:s+n], f.lit) {
			return s
		}
		p += i + 1
	}
	return -1
}

// foldFinder finds an ASCII literal in any letter case. It scans for the
// literal's rarest byte in either case (one pass: see indexFoldLetter) and
// compares the literal there with ASCII folding. When the literal has k or
// s, a line that holds the Kelvin sign or the long s near the candidate is
// reported as a possible match, for the regex to decide.
type foldFinder struct {
	lower   []byte // the literal in lower case
	rare    byte   // lower case
	letter  bool   // rare is a letter: scan for both cases
	at      int
	special bool // the literal has k or s
	last    lastScan
	up      int // next position of the upper-case rare byte; -2 unknown, -1 none
}

func newFoldFinder(s string) finder {
	f := &foldFinder{lower: bytes.ToLower([]byte(s)), at: -1}
	best := 256
	for i, c := range f.lower {
		if specialFold[c] {
			f.special = true
			continue
		}
		u := upperASCII(c)
		if r := max(int(byteRank[c]), int(byteRank[u])); r < best {
			best, f.at, f.rare, f.letter = r, i, c, u != c
		}
	}
	if f.at < 0 {
		return newHintFinder(s)
	}
	f.reset()
	return f
}

func upperASCII(c byte) byte {
	if 'a' <= c && c <= 'z' {
		return c - 'a' + 'A'
	}
	return c
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func (f *foldFinder) reset()        { f.last.forget(); f.up = -2 }
func (f *foldFinder) clone() finder { g := *f; g.reset(); return &g }

func (f *foldFinder) find(data []byte, from int) (int, bool) {
	if f.last.answers(from) {
		return f.last.next, f.last.exact
	}
	next, exact := f.scan(data, from)
	return f.last.keep(from, next, exact)
}

// scanRare returns the position of the rare byte (either case) in
// data[p:end], or -1. It serves the hint finder; the fold finder's own
// scan inlines the same idea.
func (f *foldFinder) scanRare(data []byte, p, end int) int {
	if p >= end {
		return -1
	}
	i := bytes.IndexByte(data[p:end], f.rare)
	if f.letter {
		lim := end
		if i >= 0 {
			lim = p + i
		}
		if j := bytes.IndexByte(data[p:lim], upperASCII(f.rare)); j >= 0 {
			return p + j
		}
	}
	if i < 0 {
		return -1
	}
	return p + i
}

func (f *foldFinder) scan(data []byte, from int) (int, bool) {
	n := len(f.lower)
	// A match is at least n bytes (the special variants are longer, not
	// shorter), so the rare byte sits at least n-1-at bytes from the end.
	end := len(data) - (n - 1 - f.at)
	rare, upper := f.rare, upperASCII(f.rare)
	// up is the next upper-case rare byte, found once and kept until the
	// scan passes it; between here and there only the lower case needs
	// scanning, in a tight loop of vectorised IndexByte calls.
	up := f.up
	for p := from + f.at; p < end; {
		if f.letter && (up == -2 || (up >= 0 && up < p)) {
			up = -1
			if i := bytes.IndexByte(data[p:end], upper); i >= 0 {
				up = p + i
			}
			f.up = up
		}
		lim := end
		if f.letter && up >= 0 {
			lim = up
		}
		first := f.lower[0]
		for p < lim {
			i := bytes.IndexByte(data[p:lim], rare)
			if i < 0 {
				p = lim
				break
			}
			q := p + i
			// Most candidates fail on the literal's first byte; test it
			// here before the call (unless a special variant may be near).
			if f.special || lowerASCII(data[q-f.at]) == first {
				if s, ok, exact := f.check(data, q); ok {
					return s, exact
				}
			}
			p = q + 1
		}
		if p < end && p == up {
			if s, ok, exact := f.check(data, up); ok {
				return s, exact
			}
			p = up + 1
		}
	}
	return -1, true
}

// check tests the candidate whose rare byte is at q.
func (f *foldFinder) check(data []byte, q int) (int, bool, bool) {
	s := q - f.at
	if lowerASCII(data[s]) == f.lower[0] && equalFoldASCII(data[s:s+len(f.lower)], f.lower) {
		return s, true, true
	}
	if f.special && nearSpecial(data, q, len(f.lower)) {
		return q, true, false
	}
	return 0, false, false
}

// indexFoldLetter returns the index of the first byte of b that is the
// ASCII letter lower in either case, or -1. It tests eight bytes per step
// (SWAR): OR-ing 0x20 into every byte folds A-Z onto a-z (and maps no
// other byte onto a letter), and the classic zero-byte test finds a byte
// equal to lower. One pass replaces two IndexByte scans that would each
// stop at every occurrence of their case.
func indexFoldLetter(b []byte, lower byte) int {
	const (
		lsb  = 0x0101010101010101
		msb  = 0x8080808080808080
		fold = 0x2020202020202020
	)
	pat := uint64(lower) * lsb
	i := 0
	for ; i+16 <= len(b); i += 16 {
		x := (binary.LittleEndian.Uint64(b[i:]) | fold) ^ pat
		y := (binary.LittleEndian.Uint64(b[i+8:]) | fold) ^ pat
		tx := (x - lsb) &^ x & msb
		ty := (y - lsb) &^ y & msb
		if tx|ty != 0 {
			if tx != 0 {
				return i + bits.TrailingZeros64(tx)/8
			}
			return i + 8 + bits.TrailingZeros64(ty)/8
		}
	}
	for ; i < len(b); i++ {
		if b[i]|0x20 == lower {
			return i
		}
	}
	return -1
}

// nearSpecial reports whether the bytes around q that a match holding q
// could cover include a lead byte of the Kelvin sign or the long s.
func nearSpecial(data []byte, q, n int) bool {
	lo, hi := max(0, q-3*n), min(len(data), q+3*n)
	w := data[lo:hi]
	return bytes.IndexByte(w, kelvinLead) >= 0 || bytes.IndexByte(w, longSLead) >= 0
}

// equalFoldASCII compares b with lower (already lower case), folding
// ASCII letters in b.
func equalFoldASCII(b, lower []byte) bool {
	for i, c := range b {
		if lowerASCII(c) != lower[i] {
			return false
		}
	}
	return true
}

// hintFinder serves case-insensitive literals with non-ASCII letters,
// whose case variants differ in their bytes: it scans for the rarest
// ASCII byte the literal has outside k and s and proposes each line that
// holds it. It never confirms a match.
type hintFinder struct{ f foldFinder }

func newHintFinder(s string) finder {
	best := 256
	h := &hintFinder{}
	for i := 0; i < len(s); i++ {
		c := lowerASCII(s[i])
		if c >= utf8.RuneSelf || specialFold[c] {
			continue
		}
		u := upperASCII(c)
		if r := max(int(byteRank[c]), int(byteRank[u])); r < best {
			best, h.f.rare, h.f.letter = r, c, u != c
		}
	}
	if best == 256 {
		return nil
	}
	h.reset()
	return h
}

func (h *hintFinder) reset()        { h.f.reset() }
func (h *hintFinder) clone() finder { g := *h; g.reset(); return &g }

func (h *hintFinder) find(data []byte, from int) (int, bool) {
	if from >= len(data) {
		return -1, false
	}
	return h.f.scanRare(data, from, len(data)), false
}
