package search

import (
	"bytes"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
)

// query is a compiled grep pattern: the regular expression and the
// cheapest way found to locate the lines it matches. A query is shared by
// all workers; each takes its own lineMatcher from it.
type query struct {
	re        *regexp.Regexp // the pattern, matched against one line (or a whole file in multiline mode)
	anchored  *regexp.Regexp // \A(?:pattern), for checks that start where a match must start
	seq       byteSeq        // the pattern's fixed byte-class prefix, checked before anchored
	finders   []finder       // one per required literal; empty: no prefilter
	offset    int            // byte offset of the literal in every match, or -1
	pure      bool           // a line matches iff it holds a literal
	multiline bool
	dfa       *dfaProg // nil: the regexp engine tests lines
}

// patternError is a pattern the regex engine rejects, worded for the model.
type patternError struct{ msg string }

func (e *patternError) Error() string { return e.msg }

// compileQuery builds a query. literal quotes the pattern; caseless adds
// (?i); multiline lets the pattern span lines and '.' match a newline (as
// ripgrep's -U --multiline-dotall), with ^ and $ matching at line breaks.
func compileQuery(pattern string, literal, caseless, multiline bool) (*query, error) {
	if pattern == "" {
		return nil, &patternError{"pattern is empty; give a regular expression (or a fixed string with literal: true)"}
	}
	expr := pattern
	if literal {
		expr = regexp.QuoteMeta(pattern)
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
		return nil, &patternError{fmt.Sprintf("pattern %q contains a literal line break, which never matches within one line; set multiline: true to match across lines", pattern)}
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, explainSyntax(pattern, err)
	}
	q := &query{re: re, multiline: multiline, offset: -1}
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
	return &patternError{fmt.Sprintf("invalid regular expression %q: %s; %s", pattern, msg, hint)}
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

// lineMatcher finds matching lines in a buffer of whole lines. It keeps
// scan state for the buffer it was last given; reset forgets it.
type lineMatcher struct {
	q       *query
	finders []finder
	dfa     *dfa // nil without a DFA program, or after it gave up
}

// matcher returns a line matcher for one worker.
func (q *query) matcher() *lineMatcher {
	m := &lineMatcher{q: q, finders: make([]finder, len(q.finders))}
	for i, f := range q.finders {
		m.finders[i] = f.clone()
	}
	if q.dfa != nil {
		m.dfa = q.dfa.newDFA()
	}
	return m
}

func (m *lineMatcher) reset() {
	for _, f := range m.finders {
		f.reset()
	}
}

// candidate returns the earliest occurrence of any literal at or after
// from.
func (m *lineMatcher) candidate(data []byte, from int) (int, bool) {
	best, exact := -1, false
	for _, f := range m.finders {
		p, ex := f.find(data, from)
		if p >= 0 && (best < 0 || p < best || (p == best && ex)) {
			best, exact = p, ex
		}
	}
	return best, exact
}

// next returns the bounds of the first matching line in data that starts
// at or after from, which must be the start of a line: start is the
// line's first byte, end the index of its '\n' (or len(data)).
func (m *lineMatcher) next(data []byte, from int) (start, end int, ok bool) {
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
func (m *lineMatcher) matchLine(line []byte) bool {
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
func (m *lineMatcher) everyLine(data []byte, from int) (int, int, bool) {
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
