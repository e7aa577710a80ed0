package linematch

import (
	"regexp/syntax"
	"unicode/utf8"
)

// maxSeqLen bounds a byte-class sequence; longer prefixes add nothing to
// a check that already rejects almost every candidate.
const maxSeqLen = 64

// byteSet is a set of ASCII bytes.
type byteSet [2]uint64

func (s *byteSet) add(b byte)      { s[b>>6] |= 1 << (b & 63) }
func (s *byteSet) has(b byte) bool { return b < utf8.RuneSelf && s[b>>6]&(1<<(b&63)) != 0 }
func (s *byteSet) addRange(lo, hi byte) {
	for b := lo; b <= hi; b++ {
		s.add(b)
	}
}

// byteSeq is the longest prefix of a pattern that is a fixed sequence of
// single-byte ASCII classes: [0-9]{4}-[0-9]{2} is ten of them. A candidate
// that fails the sequence cannot match, and when the sequence is the whole
// pattern (complete), one that passes does: no regex call either way.
type byteSeq struct {
	sets     []byteSet
	complete bool
}

func classSequence(re *syntax.Regexp) byteSeq {
	var sq byteSeq
	sq.complete = appendSeq(&sq.sets, re) && len(sq.sets) > 0
	return sq
}

// appendSeq appends the classes of re and reports whether all of re was
// representable; when not, what was appended is still a valid prefix.
func appendSeq(out *[]byteSet, re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpEmptyMatch:
		return true
	case syntax.OpCapture:
		return appendSeq(out, re.Sub[0])
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			if !appendSeq(out, sub) {
				return false
			}
		}
		return true
	case syntax.OpRepeat:
		if re.Min != re.Max {
			return false
		}
		for range re.Min {
			if !appendSeq(out, re.Sub[0]) {
				return false
			}
		}
		return true
	case syntax.OpLiteral:
		fold := re.Flags&syntax.FoldCase != 0
		for _, r := range re.Rune {
			if r >= utf8.RuneSelf || (fold && specialFold[r]) || len(*out) >= maxSeqLen {
				return false
			}
			var s byteSet
			b := byte(r)
			s.add(b)
			if fold {
				s.add(lowerASCII(b))
				s.add(upperASCII(b))
			}
			*out = append(*out, s)
		}
		return true
	case syntax.OpCharClass:
		if len(re.Rune) == 0 || re.Rune[len(re.Rune)-1] >= utf8.RuneSelf || len(*out) >= maxSeqLen {
			return false
		}
		var s byteSet
		for i := 0; i < len(re.Rune); i += 2 {
			s.addRange(byte(re.Rune[i]), byte(re.Rune[i+1]))
		}
		*out = append(*out, s)
		return true
	}
	return false
}

// check tests the sequence against data from s (bounded by end): ok says
// whether the bytes there pass; sure, that this alone proves a match.
func (sq *byteSeq) check(data []byte, s, end int) (ok, sure bool) {
	if s+len(sq.sets) > end {
		if sq.complete {
			return false, true
		}
		end = min(end, s+len(sq.sets))
		for i := s; i < end; i++ {
			if !sq.sets[i-s].has(data[i]) {
				return false, true
			}
		}
		return true, false
	}
	for i := range sq.sets {
		if !sq.sets[i].has(data[s+i]) {
			return false, true
		}
	}
	return true, sq.complete
}
