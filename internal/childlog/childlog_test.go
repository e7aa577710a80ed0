package childlog

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// memLog is a log kept in memory only, its supervisor called "host".
func memLog(t *testing.T) *Log {
	t.Helper()
	l, err := Open("", "child", "host")
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// A line is kept by its start and says how much was cut, whether it is
// recorded whole or drained from a pipe.
func TestLinesAreCut(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("y", MaxLine+10)
	for _, tc := range []struct {
		name, in, want string
	}{
		{"short", "hello", "stderr: hello"},
		{"trailing newline", "hello\r\n", "stderr: hello"},
		{"exactly the limit", strings.Repeat("x", MaxLine), "stderr: " + strings.Repeat("x", MaxLine)},
		{"over the limit", long, "stderr: " + long[:MaxLine] + "… (10 more bytes)"},
		{"over the limit, newline not counted", long + "\n", "stderr: " + long[:MaxLine] + "… (10 more bytes)"},
	} {
		t.Run(tc.name+"/Line", func(t *testing.T) {
			t.Parallel()
			l := memLog(t)
			l.Line("stderr", tc.in)
			if got := l.Lines(1, "")[0]; got != tc.want {
				t.Errorf("got %.80q… (%d bytes), want %.80q… (%d bytes)", got, len(got), tc.want, len(tc.want))
			}
		})
		t.Run(tc.name+"/Drain", func(t *testing.T) {
			t.Parallel()
			l := memLog(t)
			l.Drain("stderr", strings.NewReader(tc.in))
			if got := l.Lines(1, "")[0]; got != tc.want {
				t.Errorf("got %.80q… (%d bytes), want %.80q… (%d bytes)", got, len(got), tc.want, len(tc.want))
			}
		})
	}
}

// A child that writes a megabyte without a newline is read through (it
// would block on its next write otherwise) and logged by its start; the
// lines around it are kept apart.
func TestDrainReadsThroughAHugeLine(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		in    string
		lines []string
	}{
		{"alone, no newline", strings.Repeat("e", 1<<20),
			[]string{"stderr: " + strings.Repeat("e", MaxLine) + fmt.Sprintf("… (%d more bytes)", 1<<20-MaxLine)}},
		{"between lines", "before\n" + strings.Repeat("e", 1<<20) + "\nafter",
			[]string{"stderr: before", "stderr: " + strings.Repeat("e", MaxLine) + fmt.Sprintf("… (%d more bytes)", 1<<20-MaxLine), "stderr: after"}},
		{"empty lines kept", "a\n\nb\n", []string{"stderr: a", "stderr: ", "stderr: b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			l := memLog(t)
			pr, pw := io.Pipe()
			go func() {
				pw.Write([]byte(tc.in))
				pw.Close()
			}()
			l.Drain("stderr", pr)
			got := l.Lines(TailLines, "")
			if strings.Join(got, "\n") != strings.Join(tc.lines, "\n") {
				t.Errorf("got %d lines %.200q, want %d %.200q", len(got), got, len(tc.lines), tc.lines)
			}
		})
	}
}

// The memory keeps the latest TailLines lines, oldest first; Lines filters
// by source and the hint quotes the last three stderr lines.
func TestTailRingOrder(t *testing.T) {
	t.Parallel()
	l := memLog(t)
	for i := range TailLines + 5 {
		l.Line("stderr", fmt.Sprintf("line %d", i))
	}
	l.Printf("note %d", 1)
	got := l.Lines(100, "")
	if len(got) != TailLines || got[0] != "stderr: line 6" || got[len(got)-1] != "host: note 1" {
		t.Errorf("tail %q", got)
	}
	for i := 1; i < len(got)-1; i++ {
		if want := fmt.Sprintf("stderr: line %d", i+6); got[i] != want {
			t.Errorf("tail[%d] = %q, want %q", i, got[i], want)
		}
	}
	if got := l.Lines(2, "stderr"); strings.Join(got, ",") != "stderr: line 43,stderr: line 44" {
		t.Errorf("last stderr lines %q", got)
	}
	if got := l.Lines(5, "host"); len(got) != 1 {
		t.Errorf("host lines %q", got)
	}
	if hint := l.StderrHint(nil); hint != "; its stderr ends: line 42 | line 43 | line 44" {
		t.Errorf("hint %q", hint)
	}
}

// A hint with since quotes only what followed the last entry it accepts:
// the latest run of a child that was restarted.
func TestStderrHintSince(t *testing.T) {
	t.Parallel()
	started := func(s string) bool { return strings.HasPrefix(s, "host: started ") }
	for _, tc := range []struct {
		name    string
		entries [][2]string // source, text
		want    string
	}{
		{"no stderr", [][2]string{{"host", "started x"}}, ""},
		{"one run", [][2]string{{"host", "started x"}, {"stderr", "a"}, {"stderr", "b"}}, "; its stderr ends: a | b"},
		{"second run silent", [][2]string{{"host", "started x"}, {"stderr", "a"}, {"host", "started x"}}, ""},
		{"second run", [][2]string{{"stderr", "old"}, {"host", "started x"}, {"stderr", "new"}, {"stdout", "junk"}}, "; its stderr ends: new"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			l := memLog(t)
			for _, e := range tc.entries {
				l.Line(e[0], e[1])
			}
			if got := l.StderrHint(started); got != tc.want {
				t.Errorf("hint %q, want %q", got, tc.want)
			}
		})
	}
}

// A log file never grows past its limit: it is rotated to NAME.log.1,
// which is replaced at the next rotation, so a chatty child costs at most
// two files of the limit. A file over the limit when a log opens it is
// rotated first.
func TestLogFileIsRotated(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	l, err := Open(dir, "chatty", "host")
	if err != nil {
		t.Fatal(err)
	}
	l.max = 4096
	line := strings.Repeat("x", 100)
	for range 200 { // about 5 limits' worth
		l.Line("stderr", line)
	}
	l.Close()
	for _, name := range []string{"chatty.log", "chatty.log.1"} {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if fi.Size() > l.max+int64(len(line))+64 {
			t.Errorf("%s is %d bytes, over the %d limit", name, fi.Size(), l.max)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 2 {
		t.Errorf("%d files in the log folder, want 2", len(ents))
	}
	big := filepath.Join(dir, "big.log")
	if err := os.WriteFile(big, make([]byte, MaxFile), 0o644); err != nil {
		t.Fatal(err)
	}
	l2, err := Open(dir, "big", "host")
	if err != nil {
		t.Fatal(err)
	}
	l2.Line("stderr", "fresh")
	l2.Close()
	if fi, _ := os.Stat(big); fi.Size() > 1024 {
		t.Errorf("big.log was not rotated: %d bytes", fi.Size())
	}
	if fi, err := os.Stat(big + ".1"); err != nil || fi.Size() != MaxFile {
		t.Errorf("big.log.1: %v", err)
	}
}

// The file's lines are "<RFC 3339 time> <source>: <text>", and a log
// whose folder cannot be made still keeps its tail.
func TestLogFileFormat(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	l, err := Open(dir, "../a b", "bridge")
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "_.._a_b.log"); l.Path() != want {
		t.Errorf("path %q, want %q", l.Path(), want)
	}
	l.Printf("started %s", "x")
	fmt.Fprintf(l.Writer("sdk"), "one\ntwo\n")
	l.Close()
	b, err := os.ReadFile(l.Path())
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	want := []string{"bridge: started x", "sdk: one", "sdk: two"}
	if len(lines) != len(want) {
		t.Fatalf("file:\n%s", b)
	}
	for i, ln := range lines {
		stamp, rest, _ := strings.Cut(ln, " ")
		if !strings.HasSuffix(stamp, "Z") || rest != want[i] {
			t.Errorf("line %d = %q, want a UTC time and %q", i, ln, want[i])
		}
	}

	blocked := filepath.Join(dir, "file")
	os.WriteFile(blocked, nil, 0o644)
	l2, err := Open(filepath.Join(blocked, "logs"), "x", "host")
	if err == nil || l2.Path() != "" {
		t.Errorf("a folder under a file: err %v, path %q", err, l2.Path())
	}
	l2.Line("stderr", "kept")
	if got := l2.Lines(1, ""); len(got) != 1 {
		t.Errorf("tail %q", got)
	}
}

func TestFileName(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"fmt":        "fmt",
		"my.addon-1": "my.addon-1",
		"..":         "_..",
		".hidden":    "_.hidden",
		"":           "_",
		"a/b\\c d":   "a_b_c_d",
		"é":          "_",
	} {
		if got := FileName(in); got != want {
			t.Errorf("FileName(%q) = %q, want %q", in, got, want)
		}
	}
}

// Writers on many goroutines (a drain, the supervisor's notes, the SDK)
// share one log; run under -race. Every line lands whole in the file.
func TestConcurrentWriters(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	l, err := Open(dir, "busy", "host")
	if err != nil {
		t.Fatal(err)
	}
	l.max = 16 << 10 // rotate during the test too
	const writers, each = 8, 200
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				switch w % 3 {
				case 0:
					l.Printf("note %d %d", w, i)
				case 1:
					fmt.Fprintf(l.Writer("sdk"), "msg %d %d\n", w, i)
				default:
					l.Line("stderr", fmt.Sprintf("err %d %d", w, i))
				}
				_ = l.Lines(3, "stderr")
				_ = l.StderrHint(nil)
			}
		})
	}
	pr, pw := io.Pipe()
	wg.Go(func() { l.Drain("stdout", pr) })
	for i := range each {
		fmt.Fprintf(pw, "out %d\n", i)
	}
	pw.Close()
	wg.Wait()
	l.Close()
	if got := l.Lines(100, ""); len(got) != TailLines {
		t.Errorf("%d lines in the tail, want %d", len(got), TailLines)
	}
	b, err := os.ReadFile(l.Path())
	if err != nil {
		t.Fatal(err)
	}
	for _, ln := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		if f := strings.Fields(ln); len(f) < 3 {
			t.Errorf("torn line %q", ln)
		}
	}
}
