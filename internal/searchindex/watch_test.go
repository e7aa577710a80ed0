package searchindex_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"
	"pgregory.net/rapid"

	"github.com/indusagi/induscode/internal/searchindex"
)

// TestKeeperWatchSeesOutsideChanges: once a Keeper's watch is armed, a
// search stats only the files something wrote to; another process's
// edit, a file it replaces through a temporary name and a file it
// creates are found by the very next search without a walk, one it
// removes is gone from it, and so are the files of a new folder.
func TestKeeperWatchSeesOutsideChanges(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	defer searchindex.SetRacyWindow(testWindow)()
	// The counts below are of searches within the watch's trust; no
	// check of every stamp may come between them.
	defer searchindex.SetTrustFor(time.Hour)()
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, ".gitignore"), []byte("*.log\n"), 0o644); err != nil {
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
	// A file created where the walk would take it is searched by the
	// listing until the next build; one its ignore rules leave out
	// changes nothing. Neither breaks the watch.
	before = k.ListStats()
	sh("printf 'needle_watch created\\n' > d/new.txt && printf 'needle_watch ignored\\n' > d/e/x.log")
	if got := grepBoth(); !strings.Contains(got, "d/new.txt:1:needle_watch created") || strings.Contains(got, "x.log") {
		t.Fatalf("the next search missed a file another process created, or found an ignored one:\n%s", got)
	}
	if n := k.ListStats() - before; n != 2 {
		t.Fatalf("after two files were created a search stat-ed %d files, want the same 2 as before", n)
	}
	sh("rm d/new.txt")
	if got := grepBoth(); strings.Contains(got, "new.txt") {
		t.Fatalf("a created file removed again is still found:\n%s", got)
	}
	// A file of the index removed drops out, and the watch holds: the
	// search stats it once more, and walks nothing.
	sh("printf 'needle_watch soon gone\n' >> a.txt")
	grepBoth()
	before = k.ListStats()
	sh("rm a.txt")
	if got := grepBoth(); strings.Contains(got, "a.txt") {
		t.Fatalf("a removed file is still found:\n%s", got)
	}
	if n := k.ListStats() - before; n != 3 {
		t.Fatalf("after a file was removed a search stat-ed %d files, want the 3 written to or removed", n)
	}
	// A new folder is watched, then listed: the search finds what is in
	// it without a walk, and what is made in it later.
	before = k.ListStats()
	sh("mkdir -p d/f/h && printf 'needle_watch deep\\n' > d/f/g.txt && printf 'needle_watch deeper\\n' > d/f/h/i.txt")
	if got := grepBoth(); !strings.Contains(got, "d/f/g.txt:1:needle_watch deep") || !strings.Contains(got, "d/f/h/i.txt:1:needle_watch deeper") {
		t.Fatalf("the next search missed a file in a new folder:\n%s", got)
	}
	if n := k.ListStats() - before; n != 3 {
		t.Fatalf("after a new folder a search stat-ed %d files, want the 3 written to or removed before: it walked", n)
	}
	sh("printf 'needle_watch later\\n' > d/f/h/j.txt")
	if got := grepBoth(); !strings.Contains(got, "d/f/h/j.txt:1:needle_watch later") {
		t.Fatalf("the next search missed a file made in a new folder after it was seen:\n%s", got)
	}
	sh("mv d/f d/moved")
	if got := grepBoth(); strings.Contains(got, "d/f/") || !strings.Contains(got, "d/moved/h/j.txt") {
		t.Fatalf("after a new folder was renamed:\n%s", got)
	}
}

// TestWatchedIndexEqualsScan draws trees and changes that keep a
// Keeper's watch armed (edits in place, files replaced through a
// temporary name, files created where the walk takes them or where
// ignore rules leave them out, and removed again, scratch files that
// come and go, new folders with files and ignore files in them, filled
// later, removed or renamed) between searches: grep through the watched index
// answers exactly what a scan answers, and most searches are served by
// the listing, created files included.
func TestWatchedIndexEqualsScan(t *testing.T) {
	defer searchindex.SetRacyWindow(testWindow)()
	var queries, listed, withCreated atomic.Int64
	rapid.Check(t, func(rt *rapid.T) {
		root, err := os.MkdirTemp("", "watchdiff")
		if err != nil {
			rt.Fatal(err)
		}
		defer os.RemoveAll(root)
		write := func(name, body string) {
			if err := os.WriteFile(filepath.Join(root, name), []byte(body), 0o644); err != nil {
				rt.Fatal(err)
			}
		}
		for _, d := range []string{".git", "d1", "d1/d2"} {
			os.MkdirAll(filepath.Join(root, d), 0o755)
		}
		write(".gitignore", "*.log\n")
		table := []string{"a.txt", "b.go", "d1/c.txt", "d1/d2/e.md"}
		for _, name := range table {
			write(name, genText(rt, "body"))
		}
		build(rt, root)
		ctx, cancel := context.WithCancel(context.Background())
		k := searchindex.Keep(ctx, root)
		defer k.Wait()
		defer cancel()
		newNames := []string{"n1.txt", "d1/n2.go", "d1/d2/n3.txt", "d1/.n4.txt", "d1/n5.log"}
		for range rapid.IntRange(20, 40).Draw(rt, "steps") {
			switch rapid.IntRange(0, 8).Draw(rt, "step") {
			case 0: // edit in place
				write(rapid.SampledFrom(table).Draw(rt, "edit"), genText(rt, "edit"))
			case 1: // replace through a temporary name
				name := rapid.SampledFrom(table).Draw(rt, "replace")
				tmp := filepath.Join(filepath.Dir(name), ".tmp-"+filepath.Base(name))
				write(tmp, genText(rt, "replace"))
				os.Rename(filepath.Join(root, tmp), filepath.Join(root, name))
			case 2: // create, or rewrite what was created
				write(rapid.SampledFrom(newNames).Draw(rt, "create"), genText(rt, "create"))
			case 3: // remove what was created
				os.Remove(filepath.Join(root, rapid.SampledFrom(newNames).Draw(rt, "remove")))
			case 4: // a scratch file that comes and goes
				write("d1/.scratch", genText(rt, "scratch"))
				os.Remove(filepath.Join(root, "d1/.scratch"))
			case 5: // a new folder, or a file in one, or one gone
				newFolderStep(rt, root, write)
			default:
				in := genInput(rt)
				want := grep(rt, root, nil, in)
				l := &lister{counting: &counting{idx: k.Index}}
				got := grep(rt, root, keeperLister{k, l}, in)
				queries.Add(1)
				if got != want {
					rt.Fatalf("grep %v\nthrough the watched index:\n%s\nscanning:\n%s", in, got, want)
				}
				if l.listed.Load() > 0 {
					listed.Add(1)
					if createdExists(root, newNames) {
						withCreated.Add(1)
					}
				}
			}
		}
	})
	t.Logf("%d queries, %d listed by the watched index, %d of them with created files", queries.Load(), listed.Load(), withCreated.Load())
	// Many drawn searches cannot be listed (no trigram, a subfolder, a
	// glob); of the rest, most must be.
	if listed.Load() < queries.Load()/10 || withCreated.Load() < listed.Load()/4 {
		t.Error("the watched index rarely stood in for the walk, or never with created files: the test checks little")
	}
}

// keeperLister searches through a Keeper and counts its listings in l.
type keeperLister struct {
	k *searchindex.Keeper
	l *lister
}

func (kl keeperLister) Narrow(expr string) func(string) bool { return kl.k.Narrow(expr) }

func (kl keeperLister) List(root, expr string, admit func(rel, name string) bool) ([]string, bool) {
	paths, ok := kl.k.List(root, expr, admit)
	if ok {
		kl.l.listed.Add(1)
	}
	return paths, ok
}

func createdExists(root string, names []string) bool {
	for _, n := range names {
		if _, err := os.Stat(filepath.Join(root, n)); err == nil {
			return true
		}
	}
	return false
}

// newFolderStep makes, fills or removes one of two folders that are not
// in the index: nf, or d1/nf/nf2 (two new levels); a new folder may come
// with an ignore file of its own, and one may be renamed to the other's
// place.
func newFolderStep(rt *rapid.T, root string, write func(name, body string)) {
	dir := rapid.SampledFrom([]string{"nf", "d1/nf/nf2"}).Draw(rt, "folder")
	abs := filepath.Join(root, filepath.FromSlash(dir))
	switch rapid.IntRange(0, 3).Draw(rt, "folder-step") {
	case 0: // a new folder with a file, maybe an ignore file
		os.MkdirAll(abs, 0o755)
		if rapid.Bool().Draw(rt, "folder-ignore") {
			write(dir+"/.gitignore", "*.go\n")
		}
		write(dir+"/"+rapid.SampledFrom([]string{"a.txt", "b.go"}).Draw(rt, "folder-file"), genText(rt, "folder-body"))
	case 1: // a file made in it later
		if _, err := os.Stat(abs); err == nil {
			write(dir+"/"+rapid.SampledFrom([]string{"c.txt", "d.go"}).Draw(rt, "later-file"), genText(rt, "later-body"))
		}
	case 2: // gone, with what is in it
		os.RemoveAll(abs)
	case 3: // renamed to the other folder's place
		other := filepath.Join(root, "nf")
		if dir == "nf" {
			other = filepath.Join(root, "d1", "nf", "nf2")
		}
		os.RemoveAll(other)
		os.MkdirAll(filepath.Dir(other), 0o755)
		os.Rename(abs, other)
	}
}
