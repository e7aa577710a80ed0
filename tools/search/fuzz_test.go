package search

import (
	"path"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzParseRule feeds arbitrary lines to the ignore-pattern parser: it
// must never panic, and a parsed rule must behave as its kind promises.
func FuzzParseRule(f *testing.F) {
	for _, s := range []string{"*.log", "!keep.log", "/build/", "docs/**/gen", `\#x`, "a/**", "**/b", "[!a-z]?", "{a,b}", `foo\ `, "\xff*"} {
		f.Add(s, "dir/sub/name.log", true)
	}
	f.Fuzz(func(t *testing.T, line, p string, isDir bool) {
		r, ok := parseRule(line)
		if !ok {
			return
		}
		name := path.Base(p)
		got := r.match(p, name, isDir)
		if r.dirOnly && !isDir && got {
			t.Fatalf("directory-only rule %q matched a file", line)
		}
		switch r.kind {
		case kindName:
			if !r.dirOnly && !r.match(r.lit, r.lit, false) {
				t.Fatalf("name rule %q does not match its own name", line)
			}
		case kindSuffix:
			if !r.dirOnly && !r.match("x"+r.lit, "x"+r.lit, false) {
				t.Fatalf("suffix rule %q does not match x%s", line, r.lit)
			}
		}
		if strings.ContainsAny(line, "\n\r") {
			return // a rule set splits lines
		}
		rs := parseRules("/r", []byte(line+"\n"+line))
		if v := rs.match(p, name, isDir); (v != noVerdict) != got {
			t.Fatalf("rule set of %q says %v, the rule alone %v", line, v, got)
		}
	})
}

// FuzzLineMatcher checks the literal extraction and prefilters against
// the plain regular expression run on every line: whatever the pattern and
// text, the lines found must be the same.
func FuzzLineMatcher(f *testing.F) {
	f.Add("hello", "Hello\nhello world\n", false)
	f.Add("(?i)kelvin", "\u212Aelvin\nKELVIN\n", false)
	f.Add("[0-9]{4}-[0-9]{2}", "2024-01\n12-34\n", false)
	f.Add("func [A-Z]\\w+\\(ctx", "func Do(ctx\nfunc do(ctx\n", false)
	f.Add("colou?r|grey", "color\ngray\ngrey\n", true)
	f.Add("straße", "STRASSE\nStraße\n", true)
	f.Add("a|bc|d", "xxbc\nd\n\n", false)
	f.Fuzz(func(t *testing.T, pattern, text string, caseless bool) {
		if len(pattern) > 64 || len(text) > 4096 || !utf8.ValidString(pattern) {
			return
		}
		q, err := compileQuery(pattern, false, caseless, false)
		if err != nil {
			return
		}
		data := []byte(text)
		want := naiveLines(q.re, data)
		if got := matcherLines(q, data); !slices.Equal(got, want) {
			t.Fatalf("pattern %q (caseless %v) on %q: lines %v, want %v", pattern, caseless, text, got, want)
		}
	})
}

// FuzzFindPattern checks that any find pattern either compiles or is
// refused with an error, and that compiling never panics.
func FuzzFindPattern(f *testing.F) {
	for _, s := range []string{"**/*.go", "src/**/*_test.go", "*.{json,yaml}", "./a/b", "[", "a/**/b/**", "/abs/*.txt"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, pattern string) {
		base, np, err := compileFindPattern(pattern)
		if err != nil {
			return
		}
		if base == "" || np.glob == "" {
			t.Fatalf("pattern %q compiled to base %q glob %q", pattern, base, np.glob)
		}
		np.match("a/b/c.go", "c.go")
		if np.plain && !np.match("d/f"+np.suffix, "f"+np.suffix) {
			t.Fatalf("suffix pattern %q does not match a name ending in %q", pattern, np.suffix)
		}
	})
}
