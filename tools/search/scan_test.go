package search

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/indusagi/induscode/internal/walk"
)

// naiveContent is the reference for content mode: split the whole file
// into lines, mark matches, widen each by the context, keep file order.
func naiveContent(re *regexp.Regexp, data []byte, before, after int) []shownLine {
	lines := bytes.Split(data, []byte("\n"))
	if len(lines) > 0 && len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	show := make([]int, len(lines)) // 0 none, 1 context, 2 match
	for i, l := range lines {
		if re.Match(l) {
			show[i] = 2
			for j := max(0, i-before); j <= min(len(lines)-1, i+after); j++ {
				if show[j] == 0 {
					show[j] = 1
				}
			}
		}
	}
	var out []shownLine
	for i, l := range lines {
		if show[i] > 0 {
			out = append(out, shownLine{num: i + 1, text: clipLine(l, -1), match: show[i] == 2})
		}
	}
	return out
}

func writeFile(t testing.TB, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestScanChunkBoundaries(t *testing.T) {
	t.Parallel()
	var sb strings.Builder
	for i := range 200 {
		switch {
		case i%17 == 0:
			fmt.Fprintf(&sb, "line %d has the needle here\n", i)
		case i%23 == 0:
			fmt.Fprintf(&sb, "line %d is long %s needle at the end\n", i, strings.Repeat("x", 90))
		case i%5 == 0:
			sb.WriteString("\n")
		default:
			fmt.Fprintf(&sb, "line %d plain\r\n", i)
		}
	}
	sb.WriteString("last line needle without newline")
	data := []byte(sb.String())
	dir := t.TempDir()
	path := writeFile(t, dir, "f.txt", data)
	for _, pattern := range []string{"needle", `needle$`, `(?i)NEEDLE`, `^line [0-9]+ plain`, `[0-9]{2} has`} {
		q, err := compileQuery(pattern, false, false, false)
		if err != nil {
			t.Fatal(err)
		}
		for _, ctx := range [][2]int{{0, 0}, {2, 0}, {0, 3}, {4, 4}} {
			want := naiveContent(q.Regexp(), data, ctx[0], ctx[1])
			for _, size := range []int{8, 33, 64, 100, 257, 4096} {
				name := fmt.Sprintf("%s/B%dA%d/buf%d", pattern, ctx[0], ctx[1], size)
				sc := newScanner(q, scanOptions{mode: modeContent, before: ctx[0], after: ctx[1], bufSize: size})
				var hit fileHit
				ok, err := sc.scanFile(t.Context(), walk.FileAt(path), &hit)
				if err != nil || ok != (len(want) > 0) {
					t.Fatalf("%s: ok=%v err=%v", name, ok, err)
				}
				if !slices.Equal(hit.lines, want) {
					t.Fatalf("%s:\n got %v\nwant %v", name, hit.lines, want)
				}
				// count mode agrees with the number of matching lines
				sc = newScanner(q, scanOptions{mode: modeCount, bufSize: size})
				if _, err := sc.scanFile(t.Context(), walk.FileAt(path), &hit); err != nil {
					t.Fatal(err)
				}
				if n := len(naiveContent(q.Regexp(), data, 0, 0)); hit.count != n {
					t.Fatalf("%s: count %d, want %d", name, hit.count, n)
				}
			}
		}
	}
}

func TestScanKeepLimit(t *testing.T) {
	t.Parallel()
	data := []byte(strings.Repeat("hit\nmiss\n", 100))
	path := writeFile(t, t.TempDir(), "f", data)
	q, _ := compileQuery("hit", false, false, false)
	sc := newScanner(q, scanOptions{mode: modeContent, keep: 10, bufSize: 64})
	var hit fileHit
	if _, err := sc.scanFile(t.Context(), walk.FileAt(path), &hit); err != nil {
		t.Fatal(err)
	}
	if !hit.cut || len(hit.lines) != 11 || hit.lines[10].num != 21 {
		t.Fatalf("keep 10: cut=%v lines=%d last=%v; want the scan to stop after 11 lines", hit.cut, len(hit.lines), hit.lines[len(hit.lines)-1])
	}
}

func TestScanBinaryAndEdges(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	q, _ := compileQuery("needle", false, false, false)
	late := append(bytes.Repeat([]byte("needle\n"), 100), 0)
	tests := []struct {
		name string
		data []byte
		mode outputMode
		ok   bool
		err  error
	}{
		{"empty", nil, modeContent, false, nil},
		{"nul first", []byte("\x00needle\n"), modeContent, false, errBinary},
		{"nul in a later chunk", late, modeContent, false, errBinary},
		{"files mode stops at the first match", late, modeFiles, true, nil},
		{"no trailing newline", []byte("a\nneedle"), modeContent, true, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := writeFile(t, dir, strings.ReplaceAll(tt.name, " ", "_"), tt.data)
			sc := newScanner(q, scanOptions{mode: tt.mode, bufSize: 64})
			var hit fileHit
			ok, err := sc.scanFile(t.Context(), walk.FileAt(path), &hit)
			if ok != tt.ok || !errors.Is(err, tt.err) {
				t.Fatalf("ok=%v err=%v, want %v %v", ok, err, tt.ok, tt.err)
			}
		})
	}
	if _, err := newScanner(q, scanOptions{}).scanFile(t.Context(), walk.FileAt(filepath.Join(dir, "missing")), &fileHit{}); err == nil {
		t.Error("a missing file must be an error")
	}
}

func TestScanLongLine(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("ab", 400) + "needle" + strings.Repeat("c", 300)
	data := []byte("first\n" + long + "\nlast needle\n")
	path := writeFile(t, t.TempDir(), "f", data)
	q, _ := compileQuery("needle", false, false, false)
	// The buffer grows to hold the line.
	sc := newScanner(q, scanOptions{mode: modeContent, bufSize: 16, maxLine: 4096})
	var hit fileHit
	if _, err := sc.scanFile(t.Context(), walk.FileAt(path), &hit); err != nil {
		t.Fatal(err)
	}
	if len(hit.lines) != 2 || hit.lines[0].num != 2 || hit.lines[1].num != 3 {
		t.Fatalf("lines = %v", hit.lines)
	}
	text := hit.lines[0].text
	if !strings.Contains(text, "needle") || !strings.Contains(text, "[line cut: 1106 characters]") || !strings.HasPrefix(text, "…") {
		t.Errorf("a clipped long line must keep the match visible and say it was cut: %q", text)
	}
	// A line longer than the line limit is searched in pieces, with or
	// without context lines to carry between them.
	// The long line is counted once even when several pieces match, and
	// the scanner says a line was split.
	twice := []byte("first\n" + strings.Repeat("needle ", 40) + "\nlast needle\n")
	path2 := writeFile(t, t.TempDir(), "g", twice)
	for _, mode := range []outputMode{modeCount, modeContent} {
		for _, p := range []string{path, path2} {
			sc = newScanner(q, scanOptions{mode: mode, before: 2, after: 2, bufSize: 16, maxLine: 64})
			if _, err := sc.scanFile(t.Context(), walk.FileAt(p), &hit); err != nil || hit.count != 2 || sc.split != 1 {
				t.Fatalf("pieces, %v, %s: count=%d split=%d err=%v; want 2 lines, 1 split", mode, filepath.Base(p), hit.count, sc.split, err)
			}
			var matched []int
			for _, l := range hit.lines {
				if l.match {
					matched = append(matched, l.num)
				}
			}
			if mode == modeContent && !slices.Equal(matched, []int{2, 3}) {
				t.Fatalf("pieces, %s: matching lines %v, want [2 3]", filepath.Base(p), matched)
			}
		}
	}
}

func TestScanMultiline(t *testing.T) {
	t.Parallel()
	data := []byte("func a() {\n\treturn\n}\nfunc b() {\n}\nvar x\n")
	path := writeFile(t, t.TempDir(), "f.go", data)
	q, err := compileQuery(`func \w+\(\) \{\n\}`, false, false, true)
	if err != nil {
		t.Fatal(err)
	}
	sc := newScanner(q, scanOptions{mode: modeContent, after: 1})
	var hit fileHit
	if ok, err := sc.scanFile(t.Context(), walk.FileAt(path), &hit); !ok || err != nil {
		t.Fatalf("ok=%v err=%v", ok, err)
	}
	want := []shownLine{{4, "func b() {", true}, {5, "}", true}, {6, "var x", false}}
	if !slices.Equal(hit.lines, want) || hit.count != 2 {
		t.Errorf("lines = %v count=%d, want %v and 2", hit.lines, hit.count, want)
	}
	q, _ = compileQuery(`return.}`, false, false, true)
	sc = newScanner(q, scanOptions{mode: modeCount})
	if ok, _ := sc.scanFile(t.Context(), walk.FileAt(path), &hit); !ok || hit.count != 2 {
		t.Errorf("dot matches a line break in multiline mode: ok=%v count=%d", ok, hit.count)
	}
}

func TestClipLine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		line string
		at   int
		want string
	}{
		{"short", "hello", -1, "hello"},
		{"crlf", "hello\r", -1, "hello"},
		{"exactly max", strings.Repeat("a", MaxLineChars), -1, strings.Repeat("a", MaxLineChars)},
		{"multibyte under max", strings.Repeat("é", MaxLineChars), -1, strings.Repeat("é", MaxLineChars)},
		{"over max", strings.Repeat("a", MaxLineChars+1), -1, strings.Repeat("a", MaxLineChars) + "… [line cut: 501 characters]"},
		{"multibyte over max", strings.Repeat("é", MaxLineChars+5), 0, strings.Repeat("é", MaxLineChars) + "… [line cut: 505 characters]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := clipLine([]byte(tt.line), tt.at); got != tt.want {
				t.Errorf("clipLine = %q (%d runes)", got, len([]rune(got)))
			}
		})
	}
}

// TestScanLongLineGrowsOnce: a file that is one line of megabytes (a
// generated table, minified code) grows the buffer once, to the file's
// size, instead of doubling through every size below it; the match is
// found either way.
func TestScanLongLineGrowsOnce(t *testing.T) {
	line := strings.Repeat("0x1234, ", 3<<20/8) + "needle"
	path := writeFile(t, t.TempDir(), "table.go", []byte(line+"\n"))
	q, _ := compileQuery("needle", false, false, false)
	sc := newScanner(q, scanOptions{mode: modeFiles})
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	var hit fileHit
	ok, err := sc.scanFile(t.Context(), walk.FileAt(path), &hit)
	runtime.ReadMemStats(&after)
	if err != nil || !ok {
		t.Fatalf("the match at the end of a %d-byte line was not found: ok=%v err=%v", len(line), ok, err)
	}
	// Doubling from 256 KiB would allocate 0.5+1+2+4 MiB; one growth to
	// the file's size allocates its size (and the shrink after, 256 KiB).
	if got, limit := after.TotalAlloc-before.TotalAlloc, uint64(len(line))+1<<20; got > limit {
		t.Errorf("scanning a %d-byte line allocated %d bytes, want at most %d", len(line), got, limit)
	}
}
