package linematch

import (
	"regexp/syntax"
	"slices"
	"unicode/utf8"
)

// lit is a string a match may have to contain. fold means any case
// variant of s (Unicode simple folding, as the regexp's (?i) means).
type lit struct {
	s    string
	fold bool
}

// Bounds of literal extraction. A cross product of alternatives grows
// fast; past these sizes a set of literals scans slower than the regex it
// would spare, so extraction gives up on that branch.
const (
	maxExactSet = 16  // alternatives tracked for one subexpression
	maxLitBytes = 256 // length of one tracked literal
	// goodLitLen is where a longer literal stops being more selective in
	// practice; between candidates this long, a known offset (which lets
	// the check start at the match) wins.
	goodLitLen = 8
)

// litInfo is what extraction knows about a subexpression.
type litInfo struct {
	// exact is the complete set of strings the subexpression matches, or
	// nil when that set is unknown or too large. {""} is a valid set (an
	// empty match or an assertion).
	exact []lit
	// req is a set of which every match contains at least one, or nil.
	req []lit
	// reqOff is the byte offset of the req literal from the start of the
	// match when it is fixed, -1 otherwise.
	reqOff int
	// width is the fixed byte width of every match, -1 if it varies.
	width int
	// assert is set when the subexpression contains a zero-width
	// assertion (^, $, \b, \B, \A, \z), which a check that starts
	// mid-line would misjudge.
	assert bool
}

// extraction is the result for a whole pattern.
type extraction struct {
	lits   []lit // every match contains one of these; empty: no prefilter
	offset int   // fixed byte offset of the literal in a match, or -1
	pure   bool  // a line matches iff it contains one of lits
	assert bool  // the pattern has zero-width assertions
}

// extractLiterals analyses a parsed (and simplified) pattern.
func extractLiterals(re *syntax.Regexp) extraction {
	in := analyze(re)
	set, off := in.best()
	x := extraction{offset: off, assert: in.assert}
	if set == nil || slices.ContainsFunc(set, func(l lit) bool { return l.s == "" }) {
		return extraction{offset: -1, assert: in.assert}
	}
	x.lits = set
	x.pure = in.exact != nil && !in.assert && slices.Equal(set, in.exact)
	return x
}

// best returns the most selective required set of in and its offset.
func (in litInfo) best() ([]lit, int) {
	var set []lit
	off := -1
	consider := func(s []lit, o int) {
		if betterSet(s, o, set, off) {
			set, off = s, o
		}
	}
	consider(in.req, in.reqOff)
	consider(in.exact, 0)
	return set, off
}

// betterSet reports whether required set a (at offset ao) beats b. The
// shortest member bounds how selective a set is; then fewer members and a
// known offset are better.
func betterSet(a []lit, ao int, b []lit, bo int) bool {
	if len(a) == 0 || len(a) > maxPrefilterLiterals {
		return false
	}
	if len(b) == 0 {
		return true
	}
	la, lb := min(minLen(a), goodLitLen), min(minLen(b), goodLitLen)
	if la != lb {
		return la > lb
	}
	if (ao >= 0) != (bo >= 0) {
		return ao >= 0
	}
	if len(a) != len(b) {
		return len(a) < len(b)
	}
	return minLen(a) > minLen(b)
}

func minLen(set []lit) int {
	m := -1
	for _, l := range set {
		if m < 0 || len(l.s) < m {
			m = len(l.s)
		}
	}
	return max(m, 0)
}

func analyze(re *syntax.Regexp) litInfo {
	switch re.Op {
	case syntax.OpLiteral:
		fold := re.Flags&syntax.FoldCase != 0
		s := string(re.Rune)
		w := len(s)
		if (fold && !foldWidthFixed(re.Rune)) || slices.Contains(re.Rune, utf8.RuneError) {
			w = -1
		}
		if len(s) > maxLitBytes {
			// Too long to track whole: its prefix is still required.
			cut := maxLitBytes
			for cut > 0 && !utf8.RuneStart(s[cut]) {
				cut--
			}
			return litInfo{req: []lit{{s: s[:cut], fold: fold}}, reqOff: 0, width: w}
		}
		return litInfo{exact: []lit{{s: s, fold: fold}}, reqOff: -1, width: w}
	case syntax.OpCharClass:
		return classInfo(re.Rune)
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return litInfo{reqOff: -1, width: -1}
	case syntax.OpEmptyMatch:
		return litInfo{exact: []lit{{}}, reqOff: -1, width: 0}
	case syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return litInfo{exact: []lit{{}}, reqOff: -1, width: 0, assert: true}
	case syntax.OpCapture:
		return analyze(re.Sub[0])
	case syntax.OpStar:
		in := analyze(re.Sub[0])
		return litInfo{reqOff: -1, width: -1, assert: in.assert}
	case syntax.OpQuest:
		in := analyze(re.Sub[0])
		out := litInfo{reqOff: -1, width: -1, assert: in.assert}
		if in.exact != nil && len(in.exact) < maxExactSet {
			out.exact = unionLits([]lit{{}}, in.exact)
		}
		if in.width == 0 {
			out.width = 0
		}
		return out
	case syntax.OpPlus:
		return repeatInfo(analyze(re.Sub[0]), 1, -1)
	case syntax.OpRepeat:
		in := analyze(re.Sub[0])
		if re.Min == 0 {
			return litInfo{reqOff: -1, width: -1, assert: in.assert}
		}
		return repeatInfo(in, re.Min, re.Max)
	case syntax.OpConcat:
		subs := make([]litInfo, len(re.Sub))
		for i, s := range re.Sub {
			subs[i] = analyze(s)
		}
		return concatInfo(subs)
	case syntax.OpAlternate:
		subs := make([]litInfo, len(re.Sub))
		for i, s := range re.Sub {
			subs[i] = analyze(s)
		}
		return alternateInfo(subs)
	}
	// OpNoMatch and anything new: claim nothing.
	return litInfo{reqOff: -1, width: -1, assert: true}
}

// foldWidthFixed reports whether every case variant of runes has the same
// UTF-8 length as runes: true for ASCII letters except k and s, whose
// variants include the Kelvin sign and the long s.
func classHas(ranges []rune, r rune) bool {
	for i := 0; i < len(ranges); i += 2 {
		if ranges[i] <= r && r <= ranges[i+1] {
			return true
		}
	}
	return false
}

func foldWidthFixed(runes []rune) bool {
	for _, r := range runes {
		if r >= utf8.RuneSelf || specialFold[r] {
			return false
		}
	}
	return true
}

// classInfo handles a character class: small classes become exact sets
// ([Aa], [-+]); the width is fixed when all members encode to one length.
func classInfo(ranges []rune) litInfo {
	in := litInfo{reqOff: -1, width: -1}
	if len(ranges) == 0 {
		return in
	}
	lo, hi := utf8.RuneLen(ranges[0]), 0
	n := 0
	for i := 0; i < len(ranges); i += 2 {
		n += int(ranges[i+1]-ranges[i]) + 1
		lo = min(lo, utf8.RuneLen(ranges[i]))
		hi = max(hi, utf8.RuneLen(ranges[i+1]))
	}
	// An invalid byte matches as U+FFFD, one byte wide, so a class that
	// holds U+FFFD has no fixed width.
	if lo == hi && lo > 0 && !classHas(ranges, utf8.RuneError) {
		in.width = lo
	}
	if n <= 4 {
		for i := 0; i < len(ranges); i += 2 {
			for r := ranges[i]; r <= ranges[i+1]; r++ {
				in.exact = append(in.exact, lit{s: string(r)})
			}
		}
	}
	return in
}

// repeatInfo handles x{min,max} with min >= 1 (max -1: unbounded).
func repeatInfo(in litInfo, lo, hi int) litInfo {
	out := litInfo{reqOff: -1, width: -1, assert: in.assert}
	// The first repetition is a match of x at the start of the match.
	out.req, out.reqOff = in.best()
	if lo == hi {
		if in.width >= 0 {
			out.width = in.width * lo
		}
		if in.exact != nil {
			prod := in.exact
			for i := 1; i < lo && prod != nil; i++ {
				prod = crossLits(prod, in.exact)
			}
			out.exact = prod
		}
	}
	return out
}

// concatInfo combines the parts of a concatenation: runs of parts with
// exact sets multiply into longer literals, and the best required set of
// any part (or run) is required of the whole.
func concatInfo(subs []litInfo) litInfo {
	out := litInfo{reqOff: -1, width: 0}
	for _, s := range subs {
		out.assert = out.assert || s.assert
		if out.width >= 0 && s.width >= 0 {
			out.width += s.width
		} else {
			out.width = -1
		}
	}
	var req []lit
	reqOff := -1
	consider := func(set []lit, off int) {
		if betterSet(set, off, req, reqOff) {
			req, reqOff = set, off
		}
	}
	all := []lit{{}} // exact set of the whole, while every part has one
	var run []lit    // exact product of the current run of parts
	runOff := 0      // offset of the run's start, -1 if unknown
	off := 0         // offset of the current part, -1 if unknown
	for _, s := range subs {
		if all != nil {
			if s.exact == nil {
				all = nil
			} else {
				all = crossLits(all, s.exact)
			}
		}
		if s.exact != nil {
			if run == nil {
				run, runOff = s.exact, off
			} else if p := crossLits(run, s.exact); p != nil {
				run = p
			} else {
				consider(run, runOff)
				run, runOff = s.exact, off
			}
		} else {
			if run != nil {
				consider(run, runOff)
				run = nil
			}
			set, o := s.best()
			if o >= 0 && off >= 0 {
				o += off
			} else {
				o = -1
			}
			consider(set, o)
		}
		if off >= 0 && s.width >= 0 {
			off += s.width
		} else {
			off = -1
		}
	}
	if run != nil {
		consider(run, runOff)
	}
	out.exact = all
	out.req, out.reqOff = req, reqOff
	return out
}

// alternateInfo combines alternatives: the whole requires the union of
// what each alternative requires.
func alternateInfo(subs []litInfo) litInfo {
	out := litInfo{reqOff: -1, width: subs[0].width}
	var exact, req []lit
	exactOK, reqOK := true, true
	reqOff := -2 // unset
	for _, s := range subs {
		out.assert = out.assert || s.assert
		if s.width != out.width {
			out.width = -1
		}
		if exactOK && s.exact != nil {
			exact = unionLits(exact, s.exact)
			exactOK = len(exact) <= maxExactSet
		} else {
			exactOK = false
		}
		set, o := s.best()
		if reqOK && set != nil {
			req = unionLits(req, set)
			reqOK = len(req) <= maxPrefilterLiterals
			if reqOff == -2 {
				reqOff = o
			} else if reqOff != o {
				reqOff = -1
			}
		} else {
			reqOK = false
		}
	}
	if exactOK {
		out.exact = exact
	}
	if reqOK {
		out.req, out.reqOff = req, max(reqOff, -1)
	}
	return out
}

// crossLits returns every a+b, or nil when the product is too large or
// would join a case-folded literal to an exact one.
func crossLits(a, b []lit) []lit {
	if len(a)*len(b) > maxExactSet {
		return nil
	}
	out := make([]lit, 0, len(a)*len(b))
	for _, x := range a {
		for _, y := range b {
			if x.fold != y.fold && x.s != "" && y.s != "" {
				return nil
			}
			s := x.s + y.s
			if len(s) > maxLitBytes {
				return nil
			}
			out = append(out, lit{s: s, fold: (x.fold && x.s != "") || (y.fold && y.s != "")})
		}
	}
	return out
}

func unionLits(a, b []lit) []lit {
	out := slices.Clone(a)
	for _, l := range b {
		if !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	return out
}
