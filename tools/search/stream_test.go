package search

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/indusagi/induscode/internal/procs"
	"github.com/indusagi/induscode/internal/walk"
	"github.com/indusagi/induscode/tool"
)

// streamTree makes a tree whose path order differs from "sort each
// directory" ("a-b" and "a.go" before "a/…"), with many small files, some
// files with hundreds of matching lines (more than a waiting file may
// hold) and files without a match.
func streamTree(t *testing.T) string {
	t.Helper()
	files := map[string]string{
		"a/x.go":   "hit in a/x\n",
		"a-b":      "hit in a-b\n",
		"a.go":     "hit in a.go\nno\nhit again\n",
		"A":        "HIT upper case is no match\n",
		"é/hit":    "hit in é\n",
		"empty":    "",
		"nomatch":  "nothing here\n",
		"z/y/x/w1": "deep hit\n",
	}
	for i := range 300 {
		var sb strings.Builder
		for j := range i % 7 {
			fmt.Fprintf(&sb, "line %d of %d: hit %d\nfiller\n", j, i, j)
		}
		files[fmt.Sprintf("d%d/sub%d/f%03d.txt", i%5, i%3, i)] = sb.String()
	}
	// Files of about 400 KiB of matches, more than maxSlotBytes, spread
	// through the order so that some wait behind others.
	for _, name := range []string{"d0/big", "d2/sub1/big", "d4/big", "m/big"} {
		files[name] = strings.Repeat("a long matching line with hit in it, padded to be wider than most\n", 6000)
	}
	return tree(t, files)
}

// oracleContent is content output built the slow, obvious way: every file
// under root, sorted by its whole path, each line tested on its own.
func oracleContent(t *testing.T, root string, re *regexp.Regexp) string {
	t.Helper()
	var paths []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			rel, _ := filepath.Rel(root, p)
			paths = append(paths, filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(paths)
	var out strings.Builder
	for _, rel := range paths {
		data, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		for n := 1; sc.Scan(); n++ {
			if re.Match(sc.Bytes()) {
				fmt.Fprintf(&out, "%s:%d:%s\n", rel, n, sc.Text())
			}
		}
	}
	return out.String()
}

// streamed runs grep with a text stream and returns what the stream got
// followed by the result's text, as the CLI prints it.
func streamed(t *testing.T, g tool.Tool, dir, input string) string {
	t.Helper()
	var buf bytes.Buffer
	ctx := tool.WithTextStream(t.Context(), &buf)
	res := g.Run(ctx, []byte(input), tool.NewEnv(dir))
	if res.IsError {
		t.Fatalf("%s: %s", input, res.PlainText())
	}
	if rest := res.PlainText(); rest != "" {
		buf.WriteString(rest + "\n")
	}
	return buf.String()
}

func TestStreamOrderIsPathOrder(t *testing.T) {
	defer goleak.VerifyNone(t)
	root := streamTree(t)
	want := oracleContent(t, root, regexp.MustCompile("hit"))
	for _, workers := range []int{1, 4, 16} {
		g := GrepTool(Options{Workers: workers})
		in := `{"pattern":"hit","output_mode":"content","head_limit":0}`
		if got := streamed(t, g, root, in); got != want {
			t.Fatalf("workers %d: streamed output differs from the sorted one:\n%s", workers, firstDiff(got, want))
		}
		// The result that is not streamed (an MCP call) is the same text.
		if got := run(t, g, root, in).PlainText() + "\n"; got != want {
			t.Fatalf("workers %d: collected output differs from the sorted one:\n%s", workers, firstDiff(got, want))
		}
	}
}

// firstDiff shows where two outputs part.
func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range min(len(g), len(w)) {
		if g[i] != w[i] {
			return fmt.Sprintf("line %d: got %q, want %q (%d and %d lines)", i+1, g[i], w[i], len(g), len(w))
		}
	}
	return fmt.Sprintf("%d lines, want %d", len(g), len(w))
}

func TestStreamPagesAndContext(t *testing.T) {
	defer goleak.VerifyNone(t)
	root := streamTree(t)
	g := GrepTool(Options{Workers: 4})
	all := strings.Split(strings.TrimSuffix(oracleContent(t, root, regexp.MustCompile("hit")), "\n"), "\n")
	for _, tt := range []struct {
		input string
		want  string
	}{
		{`{"pattern":"hit","output_mode":"content"}`,
			strings.Join(all[:DefaultHeadLimit], "\n") + fmt.Sprintf("\n[Showing lines 1-%d; more matches exist. Use offset=%d for the next page, or narrow the search with path, glob or type.]\n", DefaultHeadLimit, DefaultHeadLimit)},
		{`{"pattern":"hit","output_mode":"content","offset":10,"head_limit":3}`,
			strings.Join(all[10:13], "\n") + "\n[Showing lines 11-13; more matches exist. Use offset=13 for the next page, or narrow the search with path, glob or type.]\n"},
		{fmt.Sprintf(`{"pattern":"hit","output_mode":"content","offset":%d,"head_limit":0}`, len(all)-2),
			strings.Join(all[len(all)-2:], "\n") + fmt.Sprintf("\n[Showing lines %d-%d of %d.]\n", len(all)-1, len(all), len(all))},
		{fmt.Sprintf(`{"pattern":"hit","output_mode":"content","offset":%d}`, len(all)),
			fmt.Sprintf("No results at offset %d: the search found %d lines. Use a smaller offset.\n", len(all), len(all))},
		{`{"pattern":"zzz","output_mode":"content"}`, "No matches for \"zzz\" in the working directory.\n"},
		{`{"pattern":"hit in a","output_mode":"content","context":1,"head_limit":0}`,
			"a-b:1:hit in a-b\n--\na.go:1:hit in a.go\na.go-2-no\n--\na/x.go:1:hit in a/x\n"},
	} {
		if got := streamed(t, g, root, tt.input); got != tt.want {
			t.Errorf("%s streamed:\n%s", tt.input, firstDiff(got, tt.want))
		}
		if got := run(t, g, root, tt.input).PlainText() + "\n"; got != tt.want {
			t.Errorf("%s as one result:\n%s", tt.input, firstDiff(got, tt.want))
		}
	}
}

func TestGrepLibraryStream(t *testing.T) {
	defer goleak.VerifyNone(t)
	root := streamTree(t)
	env := tool.NewEnv(root)
	want := oracleContent(t, root, regexp.MustCompile("hit"))
	var got strings.Builder
	sum, err := Grep(t.Context(), env, GrepInput{Pattern: "hit", HeadLimit: new(3)}, Options{Workers: 3}, func(l Line) error {
		fmt.Fprintf(&got, "%s:%d:%s\n", l.Path, l.Num, l.Text)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got.String() != want {
		t.Fatalf("Grep passed lines out of order or lost some:\n%s", firstDiff(got.String(), want))
	}
	if n := strings.Count(want, "\n"); sum.Matches != n || sum.Files == 0 || len(sum.Notices) != 0 {
		t.Errorf("summary %+v, want %d matches and no notices", sum, n)
	}

	// An error from emit stops the search and comes back.
	stop := errors.New("seen enough")
	calls := 0
	_, err = Grep(t.Context(), env, GrepInput{Pattern: "hit"}, Options{Workers: 4}, func(Line) error {
		if calls++; calls == 5 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || calls != 5 {
		t.Errorf("emit error: Grep returned %v after %d calls, want %v after 5", err, calls, stop)
	}

	// Cancelling mid-stream ends every goroutine (goleak) and says so.
	ctx, cancel := context.WithCancel(t.Context())
	_, err = Grep(ctx, env, GrepInput{Pattern: "hit"}, Options{Workers: 4}, func(Line) error {
		cancel()
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v", err)
	}

	// Bad input is an error that says what to fix.
	if _, err := Grep(t.Context(), env, GrepInput{Pattern: "a("}, Options{}, func(Line) error { return nil }); err == nil || !strings.Contains(err.Error(), "missing closing )") {
		t.Errorf("bad pattern: err = %v", err)
	}
}

// countingWriter counts what a stream writes and keeps nothing.
type countingWriter struct {
	mu    sync.Mutex
	bytes int
	lines int
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	w.bytes += len(p)
	w.lines += bytes.Count(p, []byte{'\n'})
	w.mu.Unlock()
	return len(p), nil
}

// TestGrepStreamMemory searches a tree whose content output is about
// 100 MB: streamed, the heap must stay far below that (the window of
// waiting files, the read buffers), not grow with the output.
func TestGrepStreamMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 96 MiB of files")
	}
	const (
		files   = 96
		perFile = 1 << 20
		limit   = 40 << 20
	)
	line := "a line that matches the needle, as most lines of a large result do ....\n"
	body := strings.Repeat(line, perFile/len(line))
	dir := hugeDir(t, files*perFile*2)
	for i := range files {
		p := filepath.Join(dir, fmt.Sprintf("d%d", i%4), fmt.Sprintf("f%03d.txt", i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	g := GrepTool(Options{Workers: 4})
	w := &countingWriter{}
	var res tool.Result
	peak := peakHeap(func() {
		ctx := tool.WithTextStream(t.Context(), w)
		res = g.Run(ctx, []byte(`{"pattern":"needle","output_mode":"content","head_limit":0}`), tool.NewEnv(dir))
	})
	t.Logf("%d lines, %.1f MB streamed, peak heap %.1f MB", w.lines, float64(w.bytes)/(1<<20), float64(peak)/(1<<20))
	if res.IsError || res.PlainText() != "" {
		t.Fatalf("result after the stream: %q", res.PlainText())
	}
	if want := files * (perFile / len(line)); w.lines != want {
		t.Errorf("streamed %d lines, want %d", w.lines, want)
	}
	if peak >= limit {
		t.Errorf("peak heap %d bytes while streaming %d bytes; want under %d", peak, w.bytes, limit)
	}
}

// TestGrepStreamWriteError stops the search when the stream's reader is
// gone (a closed pipe) and reports it.
func TestGrepStreamWriteError(t *testing.T) {
	defer goleak.VerifyNone(t)
	root := streamTree(t)
	ctx := tool.WithTextStream(t.Context(), failingWriter{})
	res := GrepTool(Options{Workers: 4}).Run(ctx, []byte(`{"pattern":"hit","output_mode":"content","head_limit":0}`), tool.NewEnv(root))
	if !res.IsError || !strings.Contains(res.PlainText(), "writing output: broken pipe") {
		t.Errorf("result = %q, want an error naming the failed write", res.PlainText())
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }

// A content search of a large tree says it is wide (package procs) once
// and ends it when it is done; a small one does not. Not parallel: the
// governor is process-wide.
func TestStreamSaysWhenItIsWide(t *testing.T) {
	var mu sync.Mutex
	var lifted, ended int
	remove := procs.Govern(func() func() {
		mu.Lock()
		lifted++
		mu.Unlock()
		return func() { mu.Lock(); ended++; mu.Unlock() }
	})
	defer remove()
	root := t.TempDir()
	for i := range walk.WideAfter + 50 {
		dir := filepath.Join(root, fmt.Sprintf("d%02d", i%20))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.txt", i)), []byte("a hit\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	in := `{"pattern":"hit","output_mode":"content","head_limit":0}`
	if res := run(t, GrepTool(Options{}), filepath.Join(root, "d00"), in); res.IsError || lifted != 0 {
		t.Fatalf("a search of %d files: isError %v, lifted %d", (walk.WideAfter+50)/20, res.IsError, lifted)
	}
	if res := run(t, GrepTool(Options{}), root, in); res.IsError || lifted != 1 || ended != 1 {
		t.Fatalf("a search of %d files: isError %v, lifted %d, ended %d; want 1 and 1", walk.WideAfter+50, res.IsError, lifted, ended)
	}
}
