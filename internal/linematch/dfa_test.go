package linematch

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

func dfaLines(t interface{ Fatal(...any) }, pattern string, data []byte, limit int) ([][2]int, bool) {
	d := testDFA(t, pattern)
	if d == nil {
		return nil, false
	}
	if limit > 0 {
		d.limit = limit
	}
	return d.lines(data)
}

// testDFA is a DFA for pattern, or nil when the DFA cannot run it.
func testDFA(t interface{ Fatal(...any) }, pattern string) *dfa {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		t.Fatal(err)
	}
	p := newDFAProg(re.Simplify())
	if p == nil {
		return nil
	}
	return p.newDFA()
}

// lines runs d over every line of data; false when it gave up.
func (d *dfa) lines(data []byte) ([][2]int, bool) {
	var out [][2]int
	for pos := 0; pos < len(data); {
		s, e, ok := d.next(data, pos)
		if d.failed {
			return nil, false
		}
		if !ok {
			break
		}
		out = append(out, [2]int{s, e})
		pos = e + 1
	}
	return out, true
}

func TestDFAAgreesWithRegexp(t *testing.T) {
	t.Parallel()
	patterns := []string{
		`[A-Z][a-z]+[0-9]{3,}`, `^func`, `\)$`, `^$`, `^`, `$`, `x*`, `(?i)straße`, `日本`, `[^a-z]+$`,
		`^\s*//`, `\d+\.\d+`, `(foo|bar)+baz`, `.`, `(?i)k`, `[\x{212A}]`, `a.b`, `\A\w+\z`, `(?m)^a$`,
		`[[:upper:]]{2}`, `\pL\pN`, `ab|^c|d$`,
	}
	data := []byte(matcherText + "\n\nFoo123 bar\n  // comment\nx\n\xff\xfe invalid\nab\nc\n")
	for _, p := range patterns {
		t.Run(p, func(t *testing.T) {
			t.Parallel()
			want := naiveLines(regexp.MustCompile(p), data)
			for _, limit := range []int{0, 3} {
				got, ok := dfaLines(t, p, data, limit)
				if !ok {
					if limit == 0 {
						t.Fatalf("DFA refused %q", p)
					}
					continue
				}
				if !slices.Equal(got, want) {
					t.Fatalf("limit %d: lines %v\nwant %v", limit, got, want)
				}
			}
		})
	}
	if p, _ := syntax.Parse(`\bfoo\b`, syntax.Perl); newDFAProg(p) != nil {
		t.Error("word boundaries need the regexp engine")
	}
}

func TestDFAProperty(t *testing.T) {
	t.Parallel()
	pieces := []string{"a", "b", "k", "[ab]", "[^a]", ".", "a*", "b+", "(a|bc)", "^", "$", "x?", "[0-9]", "é", "(?i)k", "\\s"}
	alphabet := []rune("abckK xé0\n\u212A")
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 5).Draw(t, "n")
		var sb strings.Builder
		for range n {
			sb.WriteString(rapid.SampledFrom(pieces).Draw(t, "piece"))
		}
		pattern := sb.String()
		text := rapid.StringOf(rapid.RuneFrom(alphabet)).Draw(t, "text")
		// Runs of bytes that start no match, of every length: the DFA
		// skips those several at a time.
		run := strings.Repeat(string(rapid.RuneFrom(alphabet).Draw(t, "run")), rapid.IntRange(0, 9).Draw(t, "runlen"))
		text = run + text
		if rapid.Bool().Draw(t, "long") {
			text = strings.Repeat(text, rapid.IntRange(2, 30).Draw(t, "times"))
		}
		re, err := regexp.Compile(pattern)
		if err != nil {
			return
		}
		want := naiveLines(re, []byte(text))
		got, ok := dfaLines(t, pattern, []byte(text), rapid.SampledFrom([]int{0, 2, 5}).Draw(t, "limit"))
		if ok && !slices.Equal(got, want) {
			t.Fatalf("pattern %q on %q: %v, want %v", pattern, text, got, want)
		}
	})
}

// TestDFASkipsOnlyLongRuns: on text where the idle state's runs are
// long the DFA keeps skipping them; where a pattern may begin at most
// bytes (runs of a byte or two) it stops, turning its table back to
// plain entries; both answer as the regexp engine does.
func TestDFASkipsOnlyLongRuns(t *testing.T) {
	var sb strings.Builder
	for i := range 6000 {
		fmt.Fprintf(&sb, "x.y z%d ab-cd ABC%04d q,r\n", i, i*7)
	}
	text := []byte(sb.String())
	for _, c := range []struct {
		pattern string
		skips   bool
	}{
		{`[A-Z]{3}[0-9]{4}`, true}, // runs of lower case, spaces, digits
		{`[^a-z]b`, false},         // begins at nearly every other byte
	} {
		d := testDFA(t, c.pattern)
		got, _ := d.lines(text)
		if want := naiveLines(regexp.MustCompile(c.pattern), text); !slices.Equal(got, want) {
			t.Errorf("%s: %d lines, want %d", c.pattern, len(got), len(want))
		}
		if d.skips < skipProbe || d.noSkip == c.skips {
			t.Errorf("%s: %d skips, stopped skipping: %v, want %v", c.pattern, d.skips, d.noSkip, !c.skips)
		}
		if d.noSkip && slices.Contains(d.trans, tIdle) {
			t.Errorf("%s: the table still sends bytes to skipIdle after it stopped", c.pattern)
		}
	}
}
