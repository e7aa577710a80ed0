package searchindex_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/indusagi/induscode/internal/searchindex"
)

// TestKeeperWatchSeesOutsideChanges: once a Keeper's watch is armed, a
// search stats only the files something wrote to; another process's
// edit is found by the very next search, and a file it creates (the
// tree's shape changes) is found by the walk the search falls back to.
func TestKeeperWatchSeesOutsideChanges(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	defer searchindex.SetRacyWindow(testWindow)()
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"a.txt", "d/b.txt", "d/e/c.txt"} {
		p := filepath.Join(root, filepath.FromSlash(n))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(strings.Repeat("plain words\n", 10)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	build(t, root)
	ctx, cancel := context.WithCancel(context.Background())
	k := searchindex.Keep(ctx, root)
	defer k.Wait()
	defer cancel()
	in := map[string]any{"pattern": "needle_watch", "output_mode": "content"}
	grepBoth := func() string {
		t.Helper()
		got, want := grep(t, root, k, in), grep(t, root, nil, in)
		if got != want {
			t.Fatalf("with the watched index:\n%s\nscanning:\n%s", got, want)
		}
		return got
	}
	grepBoth() // arms the watch: every stamp checked
	armed := k.ListStats()
	if armed < 3 {
		t.Fatalf("the arming listing stat-ed %d files, want all 3", armed)
	}
	grepBoth()
	if n := k.ListStats() - armed; n != 0 {
		t.Fatalf("a search over an unchanged watched tree stat-ed %d files", n)
	}

	sh := func(script string) {
		t.Helper()
		cmd := exec.Command("sh", "-c", script)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v %s", script, err, out)
		}
	}
	sh("printf 'a needle_watch now\\n' >> d/e/c.txt")
	if got := grepBoth(); !strings.Contains(got, "d/e/c.txt:11:a needle_watch now") {
		t.Fatalf("the next search missed another process's edit:\n%s", got)
	}
	if n := k.ListStats() - armed; n != 1 {
		t.Fatalf("after one outside edit a search stat-ed %d files, want 1", n)
	}
	// A file replaced by a rename, as the deck's own edits and most
	// editors write, is one changed file: the watch still vouches for the
	// rest, and the temporary name that came and went changes nothing.
	before := k.ListStats()
	sh("printf 'b needle_watch replaced\\n' > d/.b.txt.tmp && mv d/.b.txt.tmp d/b.txt")
	if got := grepBoth(); !strings.Contains(got, "d/b.txt:1:b needle_watch replaced") {
		t.Fatalf("the next search missed a file replaced by a rename:\n%s", got)
	}
	if n := k.ListStats() - before; n != 2 {
		t.Fatalf("after a file was replaced by a rename a search stat-ed %d files, want the 2 written to", n)
	}
	before = k.ListStats()
	sh("touch d/scratch.tmp && rm d/scratch.tmp")
	grepBoth()
	if n := k.ListStats() - before; n != 2 {
		t.Fatalf("a file created and removed again made a search stat %d files, want the same 2", n)
	}
	sh("printf 'needle_watch created\\n' > d/new.txt")
	if got := grepBoth(); !strings.Contains(got, "d/new.txt:1:needle_watch created") {
		t.Fatalf("the next search missed a file another process created:\n%s", got)
	}
}
