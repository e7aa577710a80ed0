package searchindex_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/indusagi/induscode/internal/searchindex"
)

// TestListStandsInForTheWalkOnlyWhileTheTreeHoldsStill: the file table
// answers for the walk while no directory or ignore file changed; an
// ignore file edited in place (which moves no directory's times), a new
// file and a removed one each make List refuse, and grep, walking, still
// answers exactly.
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
	check(false, "d/new.txt:1:needle_list new")
	build(t, root)
	check(true, "d/new.txt:1:needle_list new")

	if err := os.Remove(filepath.Join(root, "a.txt")); err != nil {
		t.Fatal(err)
	}
	check(false, "d/new.txt:1:needle_list new")
}
