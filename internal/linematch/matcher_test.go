package linematch

import (
	"bytes"
	"fmt"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode"

	"pgregory.net/rapid"
)

func TestExtractLiterals(t *testing.T) {
	t.Parallel()
	tests := []struct {
		pattern string
		lits    []string // "~x" is a case-folded x
		offset  int
		pure    bool
	}{
		{`hello`, []string{"hello"}, 0, true},
		{`(?i)hello`, []string{"~HELLO"}, 0, true},
		{`foo|bar`, []string{"foo", "bar"}, 0, true},
		{`colou?r`, []string{"color", "colour"}, 0, true},
		{`a(bc)d`, []string{"abcd"}, 0, true},
		{`[Aa]pple`, []string{"pple"}, 1, false},
		{`func [A-Z][a-zA-Z]+\(ctx context\.Context`, []string{"(ctx context.Context"}, -1, false},
		{`[0-9]{4}-[0-9]{2}-[0-9]{2}`, []string{"-"}, 4, false},
		{`\w+@example\.com`, []string{"@example.com"}, -1, false},
		{`^import`, []string{"import"}, 0, false},
		{`foo\b`, []string{"foo"}, 0, false},
		{`x+yz`, []string{"yz"}, -1, false},
		{`ab+c`, []string{"a"}, 0, false},
		{`.*`, nil, -1, false},
		{`[a-z]+`, nil, -1, false},
		{`a*`, nil, -1, false},
		{`(foo|.)bar`, []string{"bar"}, -1, false},
		{`(?i)straße`, []string{"~STRAßE"}, 0, true},
		{`日本語`, []string{"日本語"}, 0, true},
		{`.日本`, []string{"日本"}, -1, false},
		{`a{3}`, []string{"aaa"}, 0, true},
		{`(a|b)(c|d)`, []string{"ac", "ad", "bc", "bd"}, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.pattern, func(t *testing.T) {
			t.Parallel()
			re, err := syntax.Parse(tt.pattern, syntax.Perl)
			if err != nil {
				t.Fatal(err)
			}
			x := extractLiterals(re.Simplify())
			var got []string
			for _, l := range x.lits {
				s := l.s
				if l.fold {
					s = "~" + s
				}
				got = append(got, s)
			}
			if !slices.Equal(got, tt.lits) {
				t.Errorf("literals = %q, want %q", got, tt.lits)
			}
			if len(got) > 0 && (x.offset != tt.offset || x.pure != tt.pure) {
				t.Errorf("offset, pure = %d, %v; want %d, %v", x.offset, x.pure, tt.offset, tt.pure)
			}
		})
	}
}

func TestCompileQueryErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		pattern string
		want    string
	}{
		{"", "pattern is empty"},
		{"foo(", "missing closing )"},
		{"[a-", "missing closing ]"},
		{"a**", "invalid nested repetition operator"},
		{`(?<=x)y`, "look-around"},
		{`\q`, "invalid escape sequence"},
		{"a\nb", "multiline: true"},
	}
	for _, tt := range tests {
		t.Run(tt.pattern, func(t *testing.T) {
			t.Parallel()
			_, err := compileQuery(tt.pattern, false, false, false)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("compileQuery(%q) error = %v, want it to mention %q", tt.pattern, err, tt.want)
			}
		})
	}
	if _, err := compileQuery("a\nb", false, false, true); err != nil {
		t.Errorf("a line break is fine in multiline mode: %v", err)
	}
	if _, err := compileQuery("foo(", true, false, false); err != nil {
		t.Errorf("literal mode takes any text: %v", err)
	}
}

// naiveLines is what lineMatcher must agree with: the regex on each line.
func naiveLines(re *regexp.Regexp, data []byte) [][2]int {
	var out [][2]int
	for start := 0; start < len(data); {
		end := len(data)
		if i := bytes.IndexByte(data[start:], '\n'); i >= 0 {
			end = start + i
		}
		if re.Match(data[start:end]) {
			out = append(out, [2]int{start, end})
		}
		start = end + 1
	}
	return out
}

func matcherLines(q *Query, data []byte) [][2]int {
	m := q.Matcher()
	m.Reset()
	var out [][2]int
	for pos := 0; pos < len(data); {
		s, e, ok := m.Next(data, pos)
		if !ok {
			break
		}
		out = append(out, [2]int{s, e})
		pos = e + 1
	}
	return out
}

// matcherText exercises the prefilters' corner cases: case variants,
// the Kelvin sign and long s (which fold to k and s), multi-byte text,
// literals at the buffer's edges and lines without a final newline.
const matcherText = "Hello world\n" +
	"HELLO WORLD\n" +
	"hElLo\n" +
	"date 2024-01-31 here\n" +
	"no date 20-01-31\n" +
	"12345-67-890\n" +
	"func Handle(ctx context.Context) error {\n" +
	"func handle(ctx context.Context)\n" +
	"the \u212Aelvin and KELVIN and kelvin\n" +
	"the long \u017Fign is sign\n" +
	"straße STRASSE Straße\n" +
	"日本語のテキスト\n" +
	"colour color colr\n" +
	"\n" +
	"tab\there\r\n" +
	"a-b-c\n" +
	"unexpected EOF\n" +
	"Unexpected eof in the end"

func TestMatcherAgreesWithRegexp(t *testing.T) {
	t.Parallel()
	patterns := []string{
		"hello", "world", "(?i)hello", "(?i)WORLD", "(?i)kelvin", "(?i)sign", "(?i)ks", "(?i)straße",
		`[0-9]{4}-[0-9]{2}-[0-9]{2}`, `func [A-Z][a-zA-Z]+\(ctx context\.Context`, "colou?r", "日本",
		`^func`, `\)$`, `error \{$`, `\bsign\b`, "a|here", "(?i)unexpected eof", "-", `[0-9]+-`,
		"x?", "EOF", `eof$`, `(?i)the \x{212A}`, "\t", "\r", `(?i)[k]elvin`, `.ign`, `(colou?r|date) `,
	}
	data := []byte(matcherText)
	for _, p := range patterns {
		t.Run(p, func(t *testing.T) {
			t.Parallel()
			q, err := compileQuery(p, false, false, false)
			if err != nil {
				t.Fatal(err)
			}
			want := naiveLines(q.re, data)
			if got := matcherLines(q, data); !slices.Equal(got, want) {
				t.Errorf("lines = %v\nwant    %v", got, want)
			}
		})
	}
}

// TestMatcherProperty checks the prefilters against the plain regex on
// random text over an alphabet chosen to collide with the literals.
func TestMatcherProperty(t *testing.T) {
	t.Parallel()
	alphabet := []rune("abkKsSxX-0129 \n\u212A\u017Fé")
	rapid.Check(t, func(t *rapid.T) {
		lit := rapid.StringOfN(rapid.RuneFrom(alphabet[:len(alphabet)-4]), 1, 4, -1).Draw(t, "lit")
		lit = strings.ReplaceAll(lit, "\n", "")
		if lit == "" {
			return
		}
		shape := rapid.IntRange(0, 5).Draw(t, "shape")
		quoted := regexp.QuoteMeta(lit)
		pattern := []string{
			quoted, "(?i)" + quoted, "[0-9]" + quoted, quoted + "[a-z]+", "(?i)[0-9]{2}" + quoted, quoted + "|x-",
		}[shape]
		text := rapid.StringOf(rapid.RuneFrom(alphabet)).Draw(t, "text")
		q, err := compileQuery(pattern, false, false, false)
		if err != nil {
			t.Fatal(err)
		}
		data := []byte(text)
		want := naiveLines(q.re, data)
		if got := matcherLines(q, data); !slices.Equal(got, want) {
			t.Fatalf("pattern %q on %q: lines %v, want %v", pattern, text, got, want)
		}
	})
}

func TestFinders(t *testing.T) {
	t.Parallel()
	tests := []struct {
		lit  lit
		data string
		want []string // exact occurrences found, in order
	}{
		{lit{s: "abc"}, "xxabcxabcab", []string{"2", "6"}},
		{lit{s: "a"}, "banana", []string{"1", "3", "5"}},
		{lit{s: "zz"}, "z", nil},
		{lit{s: "hello", fold: true}, "HeLLo hello HELLO", []string{"0", "6", "12"}},
		{lit{s: "x-1", fold: true}, "X-1 x-1", []string{"0", "4"}},
		{lit{s: "kelvin", fold: true}, "KELVIN", []string{"0"}},
		{lit{s: "kelvin", fold: true}, "\u212Aelvin", []string{"hint"}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%v/%s", tt.lit, tt.data), func(t *testing.T) {
			t.Parallel()
			f := newFinder(tt.lit)
			data := []byte(tt.data)
			var got []string
			for p := 0; ; {
				q, exact := f.find(data, p)
				if q < 0 {
					break
				}
				if !exact {
					got = append(got, "hint")
				} else {
					got = append(got, fmt.Sprint(q))
				}
				p = q + 1
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("found %q, want %q", got, tt.want)
			}
		})
	}
}

func TestIndexFoldLetter(t *testing.T) {
	t.Parallel()
	for n := 0; n < 40; n++ {
		for at := -1; at < n; at++ {
			b := bytes.Repeat([]byte{'.'}, n)
			want := -1
			if at >= 0 {
				b[at] = 'Q'
				want = at
			}
			if got := indexFoldLetter(b, 'q'); got != want {
				t.Fatalf("n=%d at=%d: got %d", n, at, got)
			}
		}
	}
	// Bytes that differ from the letter only in bit 0x20 but are not its
	// other case must not match.
	if got := indexFoldLetter([]byte{'q' ^ 0x20 ^ 0x80, '1', 'Q' &^ 0x40}, 'q'); got != -1 {
		t.Errorf("false positive at %d", got)
	}
}

func TestClassSequence(t *testing.T) {
	t.Parallel()
	tests := []struct {
		pattern  string
		n        int
		complete bool
	}{
		{`[0-9]{4}-[0-9]{2}-[0-9]{2}`, 10, true},
		{`(?i)ab`, 2, true},
		{`(?i)k`, 0, false},
		{`ab+c`, 1, false},
		{`a(b|c)d`, 3, true},
		{`a(bc|d)e`, 1, false},
		{`é`, 0, false},
		{`x[^a]`, 1, false},
	}
	for _, tt := range tests {
		re, err := syntax.Parse(tt.pattern, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		sq := classSequence(re.Simplify())
		if len(sq.sets) != tt.n || sq.complete != tt.complete {
			t.Errorf("%s: %d sets, complete %v; want %d, %v", tt.pattern, len(sq.sets), sq.complete, tt.n, tt.complete)
		}
	}
	sq := classSequence(mustParse(t, `[0-9]{2}-`))
	for _, c := range []struct {
		text     string
		ok, sure bool
	}{{"12-", true, true}, {"1x-", false, true}, {"12", false, true}} {
		ok, sure := sq.check([]byte(c.text), 0, len(c.text))
		if ok != c.ok || sure != c.sure {
			t.Errorf("check(%q) = %v, %v; want %v, %v", c.text, ok, sure, c.ok, c.sure)
		}
	}
}

func mustParse(t *testing.T, p string) *syntax.Regexp {
	t.Helper()
	re, err := syntax.Parse(p, syntax.Perl)
	if err != nil {
		t.Fatal(err)
	}
	return re.Simplify()
}

func TestSpecialFold(t *testing.T) {
	t.Parallel()
	// Derive from package unicode which ASCII letters have a non-ASCII
	// case variant; the table must say exactly that.
	for c := rune(0); c < 0x80; c++ {
		want := false
		for f := unicode.SimpleFold(c); f != c; f = unicode.SimpleFold(f) {
			if f >= 0x80 {
				want = true
			}
		}
		if specialFold[c] != want {
			t.Errorf("specialFold[%q] = %v, want %v", c, specialFold[c], want)
		}
	}
}

// TestIndexFoldPair checks the pair search (its vector loop where the
// machine has one, and the byte loop after it) against a plain loop, on
// buffers of every length around the 32-byte steps, with bytes that
// differ from the pair's only in case or only in bit 0x20.
func TestIndexFoldPair(t *testing.T) {
	// Not parallel: it also runs the byte loop alone, as where the
	// vector loop cannot run.
	t.Run("vector", testIndexFoldPair)
	defer func(was bool) { haveFoldPair = was }(haveFoldPair)
	haveFoldPair = false
	t.Run("bytes", testIndexFoldPair)
}

func testIndexFoldPair(t *testing.T) {
	// One pair at every position of every length, for offsets below,
	// at and past a step.
	for _, off := range []int{1, 5, 31, 32, 33} {
		for n := 0; n < 100; n++ {
			for at := -1; at+off < n; at++ {
				b := bytes.Repeat([]byte{'x'}, n) // the first byte alone, everywhere
				want := -1
				if at >= 0 {
					b[at+off] = 'D'
					want = at
				}
				if got := indexFoldPair(b, off, 'x', 0x20, 'd', 0x20); got != want {
					t.Fatalf("off=%d n=%d at=%d: got %d", off, n, at, got)
				}
			}
		}
	}
	alphabet := []byte("xXdD@`. \x00\xf8\xd8-zZ")
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(0, 200).Draw(t, "n")
		b := rapid.SliceOfN(rapid.SampledFrom(alphabet), n, n).Draw(t, "b")
		off := rapid.IntRange(1, 40).Draw(t, "off")
		c1 := rapid.SampledFrom([]byte("xd-")).Draw(t, "c1")
		c2 := rapid.SampledFrom([]byte("xd-")).Draw(t, "c2")
		m1, m2 := foldMask(c1), foldMask(c2)
		want := -1
		for i := 0; i+off < len(b); i++ {
			if lowerASCII(b[i]) == c1 && lowerASCII(b[i+off]) == c2 {
				want = i
				break
			}
		}
		if got := indexFoldPair(b, off, c1, m1, c2, m2); got != want {
			t.Fatalf("indexFoldPair(%q, %d, %q, %q) = %d, want %d", b, off, c1, c2, got, want)
		}
	})
}

// TestPairFinderOnLongText: a case-insensitive literal on text long
// enough for the vector loop finds every occurrence, in any case, at
// every distance from a 32-byte step, and nothing else.
func TestPairFinderOnLongText(t *testing.T) {
	t.Parallel()
	if (newPairFinder("context deadline") != nil) != haveFoldPair {
		t.Fatalf("a pair finder where the vector loop runs: %v, want %v", !haveFoldPair, haveFoldPair)
	}
	// The pair finder where the vector loop runs, else the fold finder:
	// the same occurrences either way.
	f := newFinder(lit{s: "context deadline", fold: true})
	var sb strings.Builder
	var want []int
	for i := range 200 {
		sb.WriteString(strings.Repeat("x ctx dead line, ", i%7))
		sb.WriteString(strings.Repeat(".", i%33))
		if i%3 == 0 {
			want = append(want, sb.Len())
			sb.WriteString([]string{"Context Deadline", "CONTEXT DEADLINE", "context deadline"}[i%9/3])
		}
		sb.WriteString("\n")
	}
	data := []byte(sb.String())
	var got []int
	for p := 0; ; {
		q, exact := f.find(data, p)
		if q < 0 {
			break
		}
		if !exact {
			t.Fatalf("an unconfirmed occurrence at %d", q)
		}
		got = append(got, q)
		p = q + 1
	}
	if !slices.Equal(got, want) {
		t.Errorf("found %d occurrences at %v,\nwant %d at %v", len(got), got, len(want), want)
	}
}

// TestCompileKeepsQueries: the same pattern and options give the same
// query again, without compiling it (a whole-word pattern costs most of a
// millisecond); other options give another; the store stays bounded; and
// queries handed to many searches at once still answer as the regexp
// engine does.
func TestCompileKeepsQueries(t *testing.T) {
	q1, err := Compile("parseCertificate", Options{Word: true})
	if err != nil {
		t.Fatal(err)
	}
	if q2, _ := Compile("parseCertificate", Options{Word: true}); q2 != q1 {
		t.Error("the same pattern and options compiled again")
	}
	if n := testing.AllocsPerRun(20, func() { Compile("parseCertificate", Options{Word: true}) }); n > 1 {
		t.Errorf("a kept query cost %.0f allocations, want at most 1", n)
	}
	if q3, _ := Compile("parseCertificate", Options{}); q3 == q1 {
		t.Error("other options gave the same query")
	}
	for i := range 3 * maxCompiled {
		if _, err := Compile(fmt.Sprintf("p%d", i), Options{}); err != nil {
			t.Fatal(err)
		}
	}
	compiled.Lock()
	n := len(compiled.m)
	compiled.Unlock()
	if n > maxCompiled {
		t.Errorf("%d queries kept, want at most %d", n, maxCompiled)
	}
	text := []byte("a parseCertificate(x)\nparseCertificates\n(?parseCertificate)\n")
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 50 {
				q, err := Compile("parseCertificate", Options{Word: true})
				if err != nil {
					t.Error(err)
					return
				}
				if got, want := matcherLines(q, text), naiveLines(q.re, text); !slices.Equal(got, want) {
					t.Errorf("lines %v, want %v", got, want)
					return
				}
			}
		})
	}
	wg.Wait()
}
