package searchindex_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/indusagi/induscode/internal/searchindex"
)

// TestListStandsInForTheWalkOnlyWhileTheTreeHoldsStill: the file table
// answers for the walk while no ignore file of the table changed. Files
// and folders created, removed or renamed are followed without a walk (a
// new file searched, a removed one dropped, a new folder read with its
// own ignore files); an ignore file of the table edited in place (which
// moves no folder's times) or created, a new repository, or a file turned
// into a folder make List refuse. grep, walking or not, answers exactly.
func TestListStandsInForTheWalkOnlyWhileTheTreeHoldsStill(t *testing.T) {
	defer searchindex.SetRacyWindow(testWindow)()
	root := t.TempDir()
	write := func(rel, body string) {
		t.Helper()
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(".gitignore", "*.log\n")
	write("a.txt", "needle_list here\n")
	write("d/b.txt", "plain\n")
	write("d/c.log", "needle_list in a log\n")
	build(t, root)
	idx := searchindex.Open(root)
	l := &lister{counting: &counting{idx: idx}}
	in := map[string]any{"pattern": "needle_list", "output_mode": "content"}
	check := func(wantListed bool, wantLine string) {
		t.Helper()
		before := l.listed.Load()
		got, want := grep(t, root, l, in), grep(t, root, nil, in)
		if got != want || !strings.Contains(got, wantLine) {
			t.Fatalf("with the index:\n%s\nscanning:\n%s\nwant a line %q", got, want, wantLine)
		}
		if listed := l.listed.Load() > before; listed != wantListed {
			t.Fatalf("listed by the index: %v, want %v", listed, wantListed)
		}
	}
	check(true, "a.txt:1:needle_list here")

	write(".gitignore", "*.tmp\n") // in place: no directory moves
	check(false, "d/c.log:1:needle_list in a log")
	build(t, root)
	check(true, "d/c.log:1:needle_list in a log")

	write("d/new.txt", "needle_list new\n")
	check(true, "d/new.txt:1:needle_list new")
	write("d/skip.log", "needle_list ignored\n") // *.tmp is the rule now: taken
	check(true, "d/skip.log:1:needle_list ignored")
	if err := os.Remove(filepath.Join(root, "a.txt")); err != nil {
		t.Fatal(err)
	}
	check(true, "d/new.txt:1:needle_list new")
	// Saved through a temporary name, as editors do.
	write("d/.b.txt.tmp", "needle_list saved\n")
	if err := os.Rename(filepath.Join(root, "d/.b.txt.tmp"), filepath.Join(root, "d/b.txt")); err != nil {
		t.Fatal(err)
	}
	check(true, "d/b.txt:1:needle_list saved")
	write("d/x.tmp", "needle_list left out\n") // ignored: changes nothing
	check(true, "d/b.txt:1:needle_list saved")

	// New folders, with an ignore file of their own: read, not walked.
	write("d/e/f.txt", "needle_list deeper\n")
	write("d/e/g/.gitignore", "skip.txt\n")
	write("d/e/g/skip.txt", "needle_list skipped\n")
	write("d/e/g/h.txt", "needle_list deepest\n")
	check(true, "d/e/g/h.txt:1:needle_list deepest")
	write("d/r/.git/HEAD", "ref: refs/heads/main\n") // a repository: other rules
	check(false, "d/e/f.txt:1:needle_list deeper")
	if err := os.RemoveAll(filepath.Join(root, "d/r")); err != nil {
		t.Fatal(err)
	}
	build(t, root)
	check(true, "d/e/f.txt:1:needle_list deeper")

	write("d/e/.ignore", "f.txt\n") // a new ignore file
	check(false, "d/b.txt:1:needle_list saved")
	build(t, root)
	check(true, "d/b.txt:1:needle_list saved")

	if err := os.Remove(filepath.Join(root, "d/new.txt")); err != nil {
		t.Fatal(err)
	}
	write("d/new.txt/g.txt", "needle_list in a folder\n") // a file turned into a folder
	check(false, "d/new.txt/g.txt:1:needle_list in a folder")
}
