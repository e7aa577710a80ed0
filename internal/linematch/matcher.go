package linematch

import (
	"bytes"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"sync"
)

// Query is a compiled search pattern: the regular expression and the
// cheapest way found to locate the lines it matches. A Query is shared by
// all workers; each takes its own Matcher from it.
type Query struct {
	re        *regexp.Regexp // the pattern, matched against one line (or a whole file in multiline mode)
	anchored  *regexp.Regexp // \A(?:pattern), for checks that start where a match must start
	seq       byteSeq        // the pattern's fixed byte-class prefix, checked before anchored
	finders   []finder       // one per required literal; empty: no prefilter
	offset    int            // byte offset of the literal in every match, or -1
	pure      bool           // a line matches iff it holds a literal
	multiline bool
	dfa       *dfaProg // nil: the regexp engine tests lines
}

// Options say how Compile reads a pattern.
type Options struct {
	// Literal quotes the pattern: it is text, not a regular expression.
	Literal bool
	// CaseInsensitive ignores letter case (Unicode simple folding).
	CaseInsensitive bool
	// Multiline lets a match span lines: '.' matches a line break and ^
	// and $ match at every line (ripgrep's -U --multiline-dotall).
	Multiline bool
	// Word keeps only matches that stand as whole words (ripgrep's -w):
	// no word character just before the match or just after it.
	Word bool
}

// PatternError is a pattern the regex engine rejects, worded for a model
// or a person: what is wrong, where, and what to write instead.
type PatternError struct{ msg string }

func (e *PatternError) Error() string { return e.msg }

// Regexp is the compiled pattern (with the flags Options added), for
// callers that need match positions.
func (q *Query) Regexp() *regexp.Regexp { return q.re }

// Multiline reports whether the query matches across lines; such a query
// runs on a whole file, not line by line.
func (q *Query) Multiline() bool { return q.multiline }

// compileQuery is Compile with the options as arguments, for tests.
func compileQuery(pattern string, literal, caseless, multiline bool) (*Query, error) {
	return Compile(pattern, Options{Literal: literal, CaseInsensitive: caseless, Multiline: multiline})
}

// nonWord is one character that is not a word character (Unicode letters,
// marks, decimal digits and connector punctuation, as ripgrep's \w) and
// not a line break, so that a whole-word match never starts or ends on
// the line before or after it.
const nonWord = `[^\pL\pM\p{Nd}\p{Pc}\n]`

// Compile builds a query. An empty or invalid pattern is a *PatternError.
// The queries compiled lately are kept and handed out again: a query is
// never changed once built, and a long-running host (serve) gets the same
// patterns again and again, where a whole-word pattern's Unicode classes
// cost most of a millisecond and 170 KB to compile.
func Compile(pattern string, o Options) (*Query, error) {
	key := compileKey{pattern, o}
	compiled.Lock()
	q := compiled.m[key]
	compiled.Unlock()
	if q != nil {
		return q, nil
	}
	q, err := compile(pattern, o)
	if err != nil {
		return nil, err
	}
	compiled.Lock()
	defer compiled.Unlock()
	if len(compiled.m) >= maxCompiled {
		for k := range compiled.m { // one out, whichever the map gives
			delete(compiled.m, k)
			break
		}
	}
	compiled.m[key] = q
	return q, nil
}

// compiled holds up to maxCompiled queries by pattern and options.
var compiled = struct {
	sync.Mutex
	m map[compileKey]*Query
}{m: make(map[compileKey]*Query)}

type compileKey struct {
	pattern string
	o       Options
}

// An agent repeats a handful of patterns; a whole-word query holds about
// 170 KB, so the store stays under 3 MB.
const maxCompiled = 16

func compile(pattern string, o Options) (*Query, error) {
	if pattern == "" {
		return nil, &PatternError{"pattern is empty; give a regular expression (or a fixed string with literal: true)"}
	}
	literal, caseless, multiline := o.Literal, o.CaseInsensitive, o.Multiline
	expr := pattern
	if literal {
		expr = regexp.QuoteMeta(pattern)
	}
	if o.Word {
		// Check the pattern alone first: wrapped, "a)|(b" would parse.
		if _, err := syntax.Parse(expr, syntax.Perl); err != nil {
			return nil, explainSyntax(pattern, err)
		}
		// Go's regexp has no look-around, so the characters on either
		// side are part of the match; whether a line matches is the same.
		expr = `(?:^|` + nonWord + `)(?:` + expr + `)(?:` + nonWord + `|$)`
	}
	flags := ""
	if caseless {
		flags += "i"
	}
	if multiline {
		flags += "sm"
	}
	if flags != "" {
		expr = "(?" + flags + ")" + expr
	}
	tree, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil, explainSyntax(pattern, err)
	}
	if !multiline && hasNewlineLiteral(tree) {
		return nil, &PatternError{fmt.Sprintf("pattern %q contains a literal line break, which never matches within one line; set multiline: true to match across lines", pattern)}
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, explainSyntax(pattern, err)
	}
	q := &Query{re: re, multiline: multiline, offset: -1}
	simple := tree.Simplify()
	if !multiline {
		q.dfa = newDFAProg(simple)
	}
	x := extractLiterals(simple)
	for _, l := range x.lits {
		f := newFinder(l)
		if f == nil { // one alternative cannot be scanned for: no prefilter
			q.finders = nil
			break
		}
		q.finders = append(q.finders, f)
	}
	if len(q.finders) > 0 {
		q.pure = x.pure
		if !x.pure && x.offset >= 0 && !x.assert && !multiline {
			q.offset = x.offset
			if q.anchored, err = regexp.Compile(`\A(?:` + expr + `)`); err != nil {
				q.anchored, q.offset = nil, -1
			}
			q.seq = classSequence(simple)
		}
	}
	return q, nil
}

// explainSyntax rewords a regexp/syntax error: what is wrong, where, and
// what to do instead.
func explainSyntax(pattern string, err error) error {
	msg := err.Error()
	var se *syntax.Error
	if e, ok := err.(*syntax.Error); ok {
		se = e
		msg = fmt.Sprintf("%s: `%s`", e.Code, e.Expr)
	}
	hint := "escape special characters with a backslash, or set literal: true to search for the text as written"
	if se != nil && (se.Code == syntax.ErrInvalidPerlOp || se.Code == syntax.ErrInvalidNamedCapture) &&
		strings.ContainsAny(se.Expr, "=!") && strings.Contains(se.Expr, "(?") {
		hint = "look-around ((?=, (?!, (?<=, (?<!) and back-references are not supported (RE2 syntax); search for a simpler pattern and filter the results"
	}
	if se != nil && se.Code == syntax.ErrInvalidEscape && strings.Contains(se.Expr, `\`) {
		hint = "that escape is not valid RE2 syntax; \\d, \\w, \\s, \\b and \\pL are, or set literal: true"
	}
	return &PatternError{fmt.Sprintf("invalid regular expression %q: %s; %s", pattern, msg, hint)}
}

// hasNewlineLiteral reports whether the pattern spells out a line break.
func hasNewlineLiteral(re *syntax.Regexp) bool {
	if re.Op == syntax.OpLiteral && strings.ContainsRune(string(re.Rune), '\n') {
		return true
	}
	for _, s := range re.Sub {
		if hasNewlineLiteral(s) {
			return true
		}
	}
	return false
}

// Matcher finds matching lines in a buffer of whole lines for one worker.
// It keeps scan state for the buffer it was last given; Reset forgets it.
type Matcher struct {
	q       *Query
	finders []finder
	dfa     *dfa // nil without a DFA program, or after it gave up
}

// Matcher returns a line matcher for one worker.
func (q *Query) Matcher() *Matcher {
	m := &Matcher{q: q, finders: make([]finder, len(q.finders))}
	for i, f := range q.finders {
		m.finders[i] = f.clone()
	}
	if q.dfa != nil {
		m.dfa = q.dfa.newDFA()
	}
	return m
}

func (m *Matcher) Reset() {
	for _, f := range m.finders {
		f.reset()
	}
}

// MayMatch reports whether data can hold a match at all: false when the
// query has required literals and data holds none of them. Call Reset
// first when data is a new buffer.
func (m *Matcher) MayMatch(data []byte) bool {
	if len(m.finders) == 0 {
		return true
	}
	p, _ := m.candidate(data, 0)
	return p >= 0
}

// candidate returns the earliest occurrence of any literal at or after
// from.
func (m *Matcher) candidate(data []byte, from int) (int, bool) {
	best, exact := -1, false
	for _, f := range m.finders {
		p, ex := f.find(data, from)
		if p >= 0 && (best < 0 || p < best || (p == best && ex)) {
			best, exact = p, ex
		}
	}
	return best, exact
}

// Next returns the bounds of the first matching line in data that starts
// at or after from, which must be the start of a line: start is the
// line's first byte, end the index of its '\n' (or len(data)).
func (m *Matcher) Next(data []byte, from int) (start, end int, ok bool) {
	if len(m.finders) == 0 {
		return m.everyLine(data, from)
	}
	q := m.q
	lineLo := from // a line start at or before the next candidate
	lineEnd := -1  // end of the line of the last candidate
	for scan := from; scan < len(data); {
		p, exact := m.candidate(data, scan)
		if p < 0 {
			return 0, 0, false
		}
		if p >= lineEnd {
			lineLo += bytes.LastIndexByte(data[lineLo:p], '\n') + 1
			lineEnd = len(data)
			if i := bytes.IndexByte(data[p:], '\n'); i >= 0 {
				lineEnd = p + i
			}
		}
		switch {
		case exact && q.pure:
			return lineLo, lineEnd, true
		case exact && q.anchored != nil:
			if s := p - q.offset; s >= lineLo {
				ok, sure := q.seq.check(data, s, lineEnd)
				if ok && (sure || q.anchored.Match(data[s:lineEnd])) {
					return lineLo, lineEnd, true
				}
			}
			scan = p + 1
			continue
		case m.matchLine(data[lineLo:lineEnd]):
			return lineLo, lineEnd, true
		}
		scan = lineEnd + 1
		lineLo = scan
	}
	return 0, 0, false
}

// matchLine tests one line (without its '\n'): with the DFA while it
// works, else with the regexp engine.
func (m *Matcher) matchLine(line []byte) bool {
	if m.dfa != nil {
		ok := m.dfa.matchLine(line)
		if !m.dfa.failed {
			return ok
		}
		m.dfa = nil
	}
	return m.q.re.Match(line)
}

// everyLine finds the next matching line with no literal to scan for: the
// DFA reads every byte once; if it gives up, the regexp engine tests each
// line in turn.
func (m *Matcher) everyLine(data []byte, from int) (int, int, bool) {
	if m.dfa != nil {
		s, e, ok := m.dfa.next(data, from)
		if !m.dfa.failed {
			return s, e, ok
		}
		m.dfa = nil
	}
	re := m.q.re
	for from < len(data) {
		end := len(data)
		if i := bytes.IndexByte(data[from:], '\n'); i >= 0 {
			end = from + i
		}
		if re.Match(data[from:end]) {
			return from, end, true
		}
		from = end + 1
	}
	return 0, 0, false
}
