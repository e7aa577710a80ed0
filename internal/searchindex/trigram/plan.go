// Package trigram plans the query a trigram index answers for a regular
// expression: a boolean combination of trigrams (three bytes) that any
// text holding a match must contain. Package searchindex evaluates it over
// its posting lists; a plan of All means the index cannot narrow the
// search.
//
// The plan follows Russ Cox's "Regular Expression Matching with a Trigram
// Index": each node of the pattern's syntax tree is summarised by the
// strings its matches may be (exact) or start and end with (prefix,
// suffix) and a query that any text holding a match satisfies. A query
// may only say too much is possible, never too little: a file is skipped
// only when its trigrams cannot satisfy it. Case-insensitive parts,
// classes and alternations become an OR of the byte strings they allow.
package trigram

import (
	"regexp/syntax"
	"slices"
	"unicode"
	"unicode/utf8"
)

// Bounds that keep the string sets, and so the plan, small.
const (
	maxExact    = 16 // strings in an exact set before it becomes prefix/suffix
	maxSet      = 32 // strings in a prefix or suffix set
	maxClass    = 8  // runes of a character class expanded into strings
	maxExactLen = 32 // bytes of an exact string before it is folded into the query
)

// Op is the operator of a Query node.
type Op uint8

const (
	All  Op = iota // every file may match
	None           // no file matches
	And            // all of Tris and Subs
	Or             // any of Tris and Subs
)

// Query is a boolean query over trigrams.
type Query struct {
	Op   Op
	Tris []uint32 // trigrams, ascending
	Subs []*Query
}

var (
	allQuery  = &Query{Op: All}
	noneQuery = &Query{Op: None}
)

func (q *Query) and(r *Query) *Query { return combine(And, q, r) }
func (q *Query) or(r *Query) *Query  { return combine(Or, q, r) }

// combine builds q op r, folding constants and flattening nested nodes of
// the same operator.
func combine(op Op, q, r *Query) *Query {
	// The absorbing and neutral elements: for AND, none absorbs and all
	// is neutral; for OR the reverse.
	absorb, neutral := None, All
	if op == Or {
		absorb, neutral = All, None
	}
	switch {
	case q.Op == absorb || r.Op == absorb:
		if absorb == None {
			return noneQuery
		}
		return allQuery
	case q.Op == neutral:
		return r
	case r.Op == neutral:
		return q
	}
	out := &Query{Op: op}
	for _, x := range []*Query{q, r} {
		if x.Op == op {
			out.Tris = append(out.Tris, x.Tris...)
			out.Subs = append(out.Subs, x.Subs...)
		} else {
			out.Subs = append(out.Subs, x)
		}
	}
	slices.Sort(out.Tris)
	out.Tris = slices.Compact(out.Tris)
	return out
}

// trigramsOf is the Query "every trigram of s": all when s is shorter
// than three bytes.
func trigramsOf(s string) *Query {
	if len(s) < 3 {
		return allQuery
	}
	q := &Query{Op: And}
	for i := 0; i+3 <= len(s); i++ {
		q.Tris = append(q.Tris, Of(s[i], s[i+1], s[i+2]))
	}
	slices.Sort(q.Tris)
	q.Tris = slices.Compact(q.Tris)
	if len(q.Tris) == 1 {
		return &Query{Op: Or, Tris: q.Tris}
	}
	return q
}

// anyOf is the Query "the trigrams of one of the strings of set".
func anyOf(set []string) *Query {
	q := noneQuery
	for _, s := range set {
		q = q.or(trigramsOf(s))
		if q.Op == All {
			break
		}
	}
	return q
}

// Of is the trigram of three bytes, as the index stores it.
func Of(a, b, c byte) uint32 { return uint32(a)<<16 | uint32(b)<<8 | uint32(c) }

// info summarises one node. exact == nil means unknown; when exact is
// known, prefix and suffix are unused.
type info struct {
	canEmpty bool
	exact    []string
	prefix   []string
	suffix   []string
	match    *Query
}

// Plan is the trigram query of a regular expression as package
// linematch compiled it (flags included).
func Plan(expr string) *Query {
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

// plus is x+: at least one x, whose Query and ends still hold.
func plus(x info) info {
	x = x.fold()
	return info{canEmpty: x.canEmpty, prefix: x.prefix, suffix: x.suffix, match: x.match}
}

// fold turns a known exact set into prefix and suffix sets, its trigrams
// moving into the Query.
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
// the Query before shortening them.
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
// trigrams join the Query, and its strings keep only their first (last)
// two bytes, which are still prefixes (suffixes) of every match.
func bound(set []string, match *Query, suffix bool) ([]string, *Query) {
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
