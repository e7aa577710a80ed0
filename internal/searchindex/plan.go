package searchindex

import (
	"regexp/syntax"
	"slices"
	"unicode"
	"unicode/utf8"
)

// The query plan follows Russ Cox's "Regular Expression Matching with a
// Trigram Index": each node of the pattern's syntax tree is summarised by
// the strings its matches may be (exact) or start and end with (prefix,
// suffix) and a boolean query over trigrams that any text holding a match
// satisfies. The query may only say too much is possible, never too
// little: a file is skipped only when its trigrams cannot satisfy it.

// Bounds that keep the string sets, and so the plan, small.
const (
	maxExact    = 16 // strings in an exact set before it becomes prefix/suffix
	maxSet      = 32 // strings in a prefix or suffix set
	maxClass    = 8  // runes of a character class expanded into strings
	maxExactLen = 32 // bytes of an exact string before it is folded into the query
)

// qop is the operator of a query node.
type qop uint8

const (
	qAll  qop = iota // every file may match
	qNone            // no file matches
	qAnd             // all of tris and subs
	qOr              // any of tris and subs
)

// query is a boolean query over trigrams.
type query struct {
	op   qop
	tris []uint32
	subs []*query
}

var (
	allQuery  = &query{op: qAll}
	noneQuery = &query{op: qNone}
)

func (q *query) and(r *query) *query { return combine(qAnd, q, r) }
func (q *query) or(r *query) *query  { return combine(qOr, q, r) }

// combine builds q op r, folding constants and flattening nested nodes of
// the same operator.
func combine(op qop, q, r *query) *query {
	// The absorbing and neutral elements: for AND, none absorbs and all
	// is neutral; for OR the reverse.
	absorb, neutral := qNone, qAll
	if op == qOr {
		absorb, neutral = qAll, qNone
	}
	switch {
	case q.op == absorb || r.op == absorb:
		if absorb == qNone {
			return noneQuery
		}
		return allQuery
	case q.op == neutral:
		return r
	case r.op == neutral:
		return q
	}
	out := &query{op: op}
	for _, x := range []*query{q, r} {
		if x.op == op {
			out.tris = append(out.tris, x.tris...)
			out.subs = append(out.subs, x.subs...)
		} else {
			out.subs = append(out.subs, x)
		}
	}
	slices.Sort(out.tris)
	out.tris = slices.Compact(out.tris)
	return out
}

// trigramsOf is the query "every trigram of s": all when s is shorter
// than three bytes.
func trigramsOf(s string) *query {
	if len(s) < 3 {
		return allQuery
	}
	q := &query{op: qAnd}
	for i := 0; i+3 <= len(s); i++ {
		q.tris = append(q.tris, trigram(s[i], s[i+1], s[i+2]))
	}
	slices.Sort(q.tris)
	q.tris = slices.Compact(q.tris)
	if len(q.tris) == 1 {
		return &query{op: qOr, tris: q.tris}
	}
	return q
}

// anyOf is the query "the trigrams of one of the strings of set".
func anyOf(set []string) *query {
	q := noneQuery
	for _, s := range set {
		q = q.or(trigramsOf(s))
		if q.op == qAll {
			break
		}
	}
	return q
}

func trigram(a, b, c byte) uint32 { return uint32(a)<<16 | uint32(b)<<8 | uint32(c) }

// info summarises one node. exact == nil means unknown; when exact is
// known, prefix and suffix are unused.
type info struct {
	canEmpty bool
	exact    []string
	prefix   []string
	suffix   []string
	match    *query
}

// planOf is the trigram query of a regular expression as package
// linematch compiled it (flags included).
func planOf(expr string) *query {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return allQuery
	}
	in := analyze(re.Simplify())
	q := in.match
	if in.exact != nil {
		return q.and(anyOf(in.exact))
	}
	return q.and(anyOf(in.prefix)).and(anyOf(in.suffix))
}

func emptyInfo() info { return info{canEmpty: true, exact: []string{""}, match: allQuery} }

func anyCharInfo() info {
	return info{prefix: []string{""}, suffix: []string{""}, match: allQuery}
}

func analyze(re *syntax.Regexp) info {
	switch re.Op {
	case syntax.OpNoMatch:
		return info{match: noneQuery}
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText,
		syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return emptyInfo()
	case syntax.OpLiteral:
		fold := re.Flags&syntax.FoldCase != 0
		if !fold && !slices.Contains(re.Rune, utf8.RuneError) {
			return info{exact: []string{string(re.Rune)}, match: allQuery}.simplify()
		}
		x := emptyInfo()
		for _, r := range re.Rune {
			x = concat(x, runeInfo(r, fold))
		}
		return x
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return anyCharInfo()
	case syntax.OpCharClass:
		return classInfo(re.Rune)
	case syntax.OpCapture:
		return analyze(re.Sub[0])
	case syntax.OpStar:
		return star(analyze(re.Sub[0]))
	case syntax.OpPlus:
		return plus(analyze(re.Sub[0]))
	case syntax.OpQuest:
		return alternate(analyze(re.Sub[0]), emptyInfo())
	case syntax.OpRepeat:
		// Simplify leaves a repeat only when it cannot expand it; the
		// least it says is that the sub-expression occurs (min > 0).
		if re.Min == 0 {
			return star(analyze(re.Sub[0]))
		}
		return plus(analyze(re.Sub[0]))
	case syntax.OpConcat:
		x := emptyInfo()
		for _, sub := range re.Sub {
			x = concat(x, analyze(sub))
		}
		return x
	case syntax.OpAlternate:
		x := analyze(re.Sub[0])
		for _, sub := range re.Sub[1:] {
			x = alternate(x, analyze(sub))
		}
		return x
	}
	return anyCharInfo()
}

// runeInfo is one literal rune. The replacement character also matches
// any byte that is not valid UTF-8, so it says nothing about the bytes.
func runeInfo(r rune, fold bool) info {
	if r == utf8.RuneError {
		return anyCharInfo()
	}
	if !fold {
		return info{exact: []string{string(r)}, match: allQuery}
	}
	set := []string{string(r)}
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		if f == utf8.RuneError {
			return anyCharInfo()
		}
		set = append(set, string(f))
	}
	slices.Sort(set)
	return info{exact: set, match: allQuery}
}

// classInfo expands a small class into its runes; a large one is any
// character.
func classInfo(ranges []rune) info {
	n := 0
	for i := 0; i+1 < len(ranges); i += 2 {
		n += int(ranges[i+1]-ranges[i]) + 1
		if n > maxClass {
			return anyCharInfo()
		}
	}
	if n == 0 {
		return info{match: noneQuery}
	}
	var set []string
	for i := 0; i+1 < len(ranges); i += 2 {
		for r := ranges[i]; r <= ranges[i+1]; r++ {
			if r == utf8.RuneError {
				return anyCharInfo()
			}
			set = append(set, string(r))
		}
	}
	slices.Sort(set)
	return info{exact: set, match: allQuery}
}

// star is x*: anything, or nothing.
func star(x info) info {
	_ = x
	return info{canEmpty: true, prefix: []string{""}, suffix: []string{""}, match: allQuery}
}

// plus is x+: at least one x, whose query and ends still hold.
func plus(x info) info {
	x = x.fold()
	return info{canEmpty: x.canEmpty, prefix: x.prefix, suffix: x.suffix, match: x.match}
}

// fold turns a known exact set into prefix and suffix sets, its trigrams
// moving into the query.
func (x info) fold() info {
	if x.exact == nil {
		return x
	}
	x.match = x.match.and(anyOf(x.exact))
	x.prefix, x.suffix = nil, nil
	for _, s := range x.exact {
		if len(s) < 3 {
			x.prefix = append(x.prefix, s)
			x.suffix = append(x.suffix, s)
		} else {
			x.prefix = append(x.prefix, s[:2])
			x.suffix = append(x.suffix, s[len(s)-2:])
		}
	}
	x.exact = nil
	x.prefix, x.suffix = clean(x.prefix), clean(x.suffix)
	return x
}

func concat(x, y info) info {
	if x.exact != nil && y.exact != nil {
		if len(x.exact)*len(y.exact) <= maxExact {
			out := info{canEmpty: x.canEmpty && y.canEmpty, match: x.match.and(y.match)}
			out.exact = clean(cross(x.exact, y.exact))
			return out.simplify()
		}
		x = x.fold()
	}
	out := info{canEmpty: x.canEmpty && y.canEmpty, match: x.match.and(y.match)}
	if x.exact != nil {
		out.prefix = clean(cross(x.exact, y.prefix))
	} else {
		out.prefix = x.prefix
		if x.canEmpty {
			out.prefix = clean(append(slices.Clone(x.prefix), y.prefix...))
		}
	}
	if y.exact != nil {
		out.suffix = clean(cross(x.suffix, y.exact))
	} else {
		out.suffix = y.suffix
		if y.canEmpty {
			out.suffix = clean(append(slices.Clone(y.suffix), x.suffix...))
		}
	}
	// A match of xy holds a string of x.suffix followed by one of
	// y.prefix; when every such pair is three bytes or more, one of their
	// trigrams is present.
	if x.exact == nil && y.exact == nil && len(x.suffix)*len(y.prefix) <= maxSet*maxSet {
		out.match = out.match.and(anyOf(cross(x.suffix, y.prefix)))
	}
	return out.simplify()
}

func alternate(x, y info) info {
	out := info{canEmpty: x.canEmpty || y.canEmpty}
	if x.exact != nil && y.exact != nil && len(x.exact)+len(y.exact) <= maxExact {
		out.exact = clean(append(slices.Clone(x.exact), y.exact...))
		out.match = x.match.or(y.match)
		return out.simplify()
	}
	x, y = x.fold(), y.fold()
	out.match = x.match.or(y.match)
	out.prefix = clean(append(slices.Clone(x.prefix), y.prefix...))
	out.suffix = clean(append(slices.Clone(y.suffix), x.suffix...))
	return out.simplify()
}

// simplify keeps the sets within their bounds, moving what they say into
// the query before shortening them.
func (x info) simplify() info {
	if x.exact != nil {
		long := false
		for _, s := range x.exact {
			long = long || len(s) > maxExactLen
		}
		if len(x.exact) <= maxExact && !long {
			return x
		}
		x = x.fold()
	}
	x.prefix, x.match = bound(x.prefix, x.match, false)
	x.suffix, x.match = bound(x.suffix, x.match, true)
	return x
}

// bound shortens a prefix (or suffix) set that grew too large: its
// trigrams join the query, and its strings keep only their first (last)
// two bytes, which are still prefixes (suffixes) of every match.
func bound(set []string, match *query, suffix bool) ([]string, *query) {
	long := false
	for _, s := range set {
		long = long || len(s) > maxExactLen
	}
	if len(set) <= maxSet && !long {
		return set, match
	}
	match = match.and(anyOf(set))
	short := make([]string, 0, len(set))
	for _, s := range set {
		if len(s) > 2 {
			if suffix {
				s = s[len(s)-2:]
			} else {
				s = s[:2]
			}
		}
		short = append(short, s)
	}
	short = clean(short)
	if len(short) > maxSet {
		return []string{""}, match
	}
	return short, match
}

func cross(a, b []string) []string {
	out := make([]string, 0, len(a)*len(b))
	for _, x := range a {
		for _, y := range b {
			out = append(out, x+y)
		}
	}
	return out
}

func clean(set []string) []string {
	slices.Sort(set)
	return slices.Compact(set)
}
