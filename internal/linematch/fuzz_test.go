package linematch

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

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
	f.Add("context deadline", strings.Repeat("x ctx dead line, ", 6)+"Context DEADLINE\n", true)
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

// FuzzWordMatcher is FuzzLineMatcher for whole-word queries, whose
// pattern is wrapped in boundary classes before the prefilters see it.
func FuzzWordMatcher(f *testing.F) {
	f.Add("log", "log(x)\nlogger\nblog\n-log-\n", false)
	f.Add("(?i)eof", "EOF\nunexpected eof.\neofs\n", true)
	f.Add("a|b", "a b\nab\n\n", false)
	f.Add("^x", "x y\n yx\n", false)
	f.Fuzz(func(t *testing.T, pattern, text string, caseless bool) {
		if len(pattern) > 64 || len(text) > 4096 || !utf8.ValidString(pattern) {
			return
		}
		q, err := Compile(pattern, Options{Word: true, CaseInsensitive: caseless})
		if err != nil {
			return
		}
		data := []byte(text)
		want := naiveLines(q.re, data)
		if got := matcherLines(q, data); !slices.Equal(got, want) {
			t.Fatalf("word pattern %q (caseless %v) on %q: lines %v, want %v", pattern, caseless, text, got, want)
		}
	})
}
