package searchindex_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/indusagi/induscode/internal/searchindex"
	"github.com/indusagi/induscode/tool"
	"github.com/indusagi/induscode/tools/search"
)

// testWindow is the racy window of these tests: longer than the
// timestamp granularity of the file systems tests run on, short enough
// to wait out.
const testWindow = 15 * time.Millisecond

// counting wraps an index and counts the files it let grep skip, so a
// test can tell that the index was used and not merely harmless.
type counting struct {
	idx     *searchindex.Index
	skipped atomic.Int64
}

// lister is counting with the index's List, so that grep takes the
// file table for the walk whenever the index can vouch for the tree;
// listed counts the searches it served.
type lister struct {
	*counting
	listed atomic.Int64
}

func (l *lister) List(root, expr string, admit func(rel, name string) bool) ([]string, bool) {
	paths, ok := l.idx.List(root, expr, admit)
	if ok {
		l.listed.Add(1)
	}
	return paths, ok
}

func (c *counting) Narrow(expr string) func(string) bool {
	skip := c.idx.Narrow(expr)
	if skip == nil {
		return nil
	}
	return func(p string) bool {
		ok := skip(p)
		if ok {
			c.skipped.Add(1)
		}
		return ok
	}
}

// tb is what the helpers need of a *testing.T or a *rapid.T.
type tb interface {
	Helper()
	Fatal(args ...any)
	Fatalf(format string, args ...any)
}

// quiet waits until every file changed so far is outside the racy
// window of a build starting now: the clock has to pass it.
func quiet(t tb) {
	t.Helper()
	deadline := time.Now().Add(testWindow + 15*time.Millisecond)
	for time.Now().Before(deadline) {
		time.Sleep(time.Until(deadline))
	}
}

func build(t tb, root string) {
	t.Helper()
	quiet(t)
	if _, err := searchindex.Build(context.Background(), root); err != nil {
		t.Fatalf("build: %v", err)
	}
}

func grep(t tb, root string, n search.Narrower, in map[string]any) string {
	t.Helper()
	raw, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	g := search.GrepTool(search.Options{Index: n, Workers: 2})
	r := g.Run(context.Background(), raw, tool.NewEnv(root))
	return fmt.Sprintf("error=%v\n%s", r.IsError, r.PlainText())
}

// The vocabulary of generated files and patterns: words that share
// trigrams, case variants, letters with non-ASCII case folds (K and the
// Kelvin sign, s and the long s), accents, invalid UTF-8, CRLF, NUL.
var words = []string{
	"foo", "Foo", "FOO", "bar", "Bar", "baz", "qux", "foobar", "barfoo", "func", "Func",
	"kelvin", "\u212Aelvin", "Kelvin", "sss", "\u017Fs", "café", "CAFÉ", "日本語", "日本",
	"x", "yy", "a1", "b22", "_id", "err", "Err", "ErrEOF", "\xff\xfe", "\ufffd",
}

var separators = []string{" ", " ", "  ", "\t", ".", "(", ")", "\n", "\n", "\r\n", ",", "-"}

func genText(t *rapid.T, label string) string {
	var sb strings.Builder
	n := rapid.IntRange(0, 40).Draw(t, label+"-n")
	for range n {
		sb.WriteString(rapid.SampledFrom(words).Draw(t, label+"-w"))
		sb.WriteString(rapid.SampledFrom(separators).Draw(t, label+"-s"))
	}
	if rapid.IntRange(0, 20).Draw(t, label+"-nul") == 0 {
		sb.WriteString("\x00")
	}
	return sb.String()
}

// genPattern draws a regular expression over the vocabulary.
func genPattern(t *rapid.T, depth int) string {
	leaf := func() string {
		switch rapid.IntRange(0, 9).Draw(t, "leaf") {
		case 0:
			return rapid.SampledFrom([]string{"[a-c]", "[fF]", `\d`, `\w`, "[^o]", ".", "[kK\u212A]", "[éÉ]", `\s`, "[xy]{2}"}).Draw(t, "class")
		case 1:
			return rapid.SampledFrom([]string{"^", "$", `\b`, `\B`, `\A`, `\z`}).Draw(t, "anchor")
		default:
			return regexp.QuoteMeta(rapid.SampledFrom(words).Draw(t, "lit"))
		}
	}
	if depth <= 0 {
		return leaf()
	}
	switch rapid.IntRange(0, 6).Draw(t, "shape") {
	case 0:
		return genPattern(t, depth-1) + "|" + genPattern(t, depth-1)
	case 1:
		return "(" + genPattern(t, depth-1) + ")" + rapid.SampledFrom([]string{"", "?", "*", "+", "{2}", "{1,3}"}).Draw(t, "rep")
	case 2:
		return "(?i)" + genPattern(t, depth-1)
	case 3, 4:
		return genPattern(t, depth-1) + genPattern(t, depth-1)
	case 5:
		return genPattern(t, depth-1) + rapid.SampledFrom([]string{".*", ".+", `\s*`, "[^x]*", `\n`}).Draw(t, "gap") + genPattern(t, depth-1)
	}
	return leaf()
}

func genInput(t *rapid.T) map[string]any {
	in := map[string]any{
		"pattern":     genPattern(t, rapid.IntRange(0, 3).Draw(t, "depth")),
		"output_mode": rapid.SampledFrom([]string{"files_with_matches", "content", "count"}).Draw(t, "mode"),
	}
	if rapid.Bool().Draw(t, "literal") {
		in["pattern"] = rapid.SampledFrom(words).Draw(t, "litpat") + rapid.SampledFrom([]string{"", " ", ".", "(", "foo"}).Draw(t, "litsuffix")
		in["literal"] = true
	}
	for _, flag := range []string{"case_insensitive", "word", "multiline"} {
		if rapid.IntRange(0, 3).Draw(t, flag) == 0 {
			in[flag] = true
		}
	}
	if rapid.Bool().Draw(t, "ctx") {
		in["context"] = rapid.IntRange(0, 2).Draw(t, "context")
	}
	if rapid.IntRange(0, 4).Draw(t, "paged") == 0 {
		in["head_limit"] = rapid.IntRange(0, 5).Draw(t, "head_limit")
		in["offset"] = rapid.IntRange(0, 3).Draw(t, "offset")
	}
	if rapid.IntRange(0, 5).Draw(t, "sub") == 0 {
		in["path"] = "d1"
	}
	switch rapid.IntRange(0, 7).Draw(t, "filter") {
	case 0:
		in["glob"] = "*.txt"
	case 1:
		in["type"] = "go"
	}
	return in
}

var names = []string{"a.txt", "b.go", "d1/c.txt", "d1/d.go", "d1/d2/e.md", "f.txt", "d1/g.txt", ".hidden.txt", "ignored.log", "h.bin"}

// TestIndexedGrepEqualsScan draws trees, patterns and options, and
// edits, creates, deletes and renames files and folders between queries: grep with
// the index answers exactly what grep without it answers, every time.
func TestIndexedGrepEqualsScan(t *testing.T) {
	defer searchindex.SetRacyWindow(testWindow)()
	var queries, skipped, listed atomic.Int64
	rapid.Check(t, func(rt *rapid.T) {
		root, err := os.MkdirTemp("", "indexdiff")
		if err != nil {
			rt.Fatal(err)
		}
		defer os.RemoveAll(root)
		write := func(name, body string) {
			p := filepath.Join(root, name)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				rt.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
				rt.Fatal(err)
			}
		}
		write(".gitignore", "*.log\n")
		os.Mkdir(filepath.Join(root, ".git"), 0o755)
		for _, name := range names {
			if rapid.IntRange(0, 3).Draw(rt, "present") > 0 {
				write(name, genText(rt, "body"))
			}
		}
		build(rt, root)
		c := &counting{idx: searchindex.Open(root)}
		l := &lister{counting: c}
		// k is serve's index: it watches the tree and rebuilds in the
		// background.
		ctx, cancel := context.WithCancel(context.Background())
		k := searchindex.Keep(ctx, root)
		defer k.Wait()
		defer cancel()
		// refresh, now and then, is the deck's own change reaching the
		// index in the same call.
		refresh := func(name string) {
			if rapid.IntRange(0, 2).Draw(rt, "refresh") == 0 {
				c.idx.Refresh(filepath.Join(root, name))
			}
		}
		for range rapid.IntRange(60, 100).Draw(rt, "steps") {
			switch rapid.IntRange(0, 15).Draw(rt, "step") {
			case 0: // rewrite a file in place, same size when it can
				name := rapid.SampledFrom(names).Draw(rt, "edit")
				p := filepath.Join(root, name)
				old, err := os.ReadFile(p)
				body := genText(rt, "edit")
				if err == nil && len(old) > 0 && rapid.Bool().Draw(rt, "samesize") {
					b := old
					b[rapid.IntRange(0, len(b)-1).Draw(rt, "at")] = rapid.SampledFrom([]byte("qfoK\n")).Draw(rt, "byte")
					f, err := os.OpenFile(p, os.O_WRONLY, 0)
					if err != nil {
						rt.Fatal(err)
					}
					f.WriteAt(b, 0)
					f.Close()
					refresh(name)
					continue
				}
				write(name, body)
				refresh(name)
			case 1: // create or replace
				name := rapid.SampledFrom(names).Draw(rt, "create")
				write(name, genText(rt, "create"))
				refresh(name)
			case 2: // delete
				os.Remove(filepath.Join(root, rapid.SampledFrom(names).Draw(rt, "delete")))
			case 3: // rename over another name
				os.Rename(filepath.Join(root, rapid.SampledFrom(names).Draw(rt, "from")),
					filepath.Join(root, rapid.SampledFrom(names).Draw(rt, "to")))
			case 4: // rebuild now and then
				if rapid.IntRange(0, 3).Draw(rt, "rebuild") == 0 {
					build(rt, root)
				}
			case 5: // replace through a temporary name, as the deck and editors write
				name := rapid.SampledFrom(names).Draw(rt, "replace")
				tmp := filepath.Join(filepath.Dir(name), ".tmp-"+filepath.Base(name))
				write(tmp, genText(rt, "replace"))
				os.Rename(filepath.Join(root, tmp), filepath.Join(root, name))
				refresh(name)
			case 6: // a file that comes and goes between two searches
				write("d1/.scratch", genText(rt, "scratch"))
				os.Remove(filepath.Join(root, "d1/.scratch"))
			case 7: // a new folder, or a file in one, or one gone
				newFolderStep(rt, root, write)
			default:
				in := genInput(rt)
				want := grep(rt, root, nil, in)
				var n search.Narrower = c
				switch rapid.IntRange(0, 2).Draw(rt, "index") {
				case 1:
					n = l
				case 2:
					n = k
				}
				got := grep(rt, root, n, in)
				queries.Add(1)
				if got != want {
					rt.Fatalf("grep %v\nwith the index:\n%s\nscanning:\n%s", in, got, want)
				}
			}
		}
		skipped.Add(c.skipped.Load())
		listed.Add(l.listed.Load())
	})
	t.Logf("%d queries, %d files skipped by the index, %d searches listed by it", queries.Load(), skipped.Load(), listed.Load())
	if !testing.Short() && queries.Load() < 2000 {
		t.Errorf("only %d queries ran; the test wants at least 2000", queries.Load())
	}
	if skipped.Load() == 0 {
		t.Error("the index never let grep skip a file: the test checks nothing")
	}
	if listed.Load() == 0 {
		t.Error("the index never stood in for the walk: the test checks nothing of List")
	}
}
