package searchindex_test

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/indusagi/induscode/internal/searchindex"
)

// recording wraps an index and records the files it let grep skip.
type recording struct {
	idx     *searchindex.Index
	mu      sync.Mutex
	skipped map[string]bool
}

func (r *recording) Narrow(expr string) func(string) bool {
	skip := r.idx.Narrow(expr)
	if skip == nil {
		return nil
	}
	return func(p string) bool {
		ok := skip(p)
		if ok {
			r.mu.Lock()
			r.skipped[filepath.Base(p)] = true
			r.mu.Unlock()
		}
		return ok
	}
}

// TestRefreshKeepsChangedFileSkippable: a file the deck changed and
// refreshed is passed over by a query its new content cannot match, and
// found by one it does; a file changed again behind the refresh's back
// is scanned.
func TestRefreshKeepsChangedFileSkippable(t *testing.T) {
	defer searchindex.SetRacyWindow(testWindow)()
	root := t.TempDir()
	for _, n := range []string{"a.txt", "b.txt", "c.txt"} {
		if err := os.WriteFile(filepath.Join(root, n), []byte(strings.Repeat("plain words\n", 20)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	build(t, root)
	idx := searchindex.Open(root)
	edited := filepath.Join(root, "b.txt")
	if err := os.WriteFile(edited, []byte("now with needle_fresh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	idx.Refresh(edited)
	quiet(t)
	r := &recording{idx: idx, skipped: map[string]bool{}}
	for _, q := range []string{"zzz_absent", "needle_fresh", "plain words"} {
		in := map[string]any{"pattern": q, "output_mode": "content"}
		if got, want := grep(t, root, r, in), grep(t, root, nil, in); got != want {
			t.Fatalf("grep %q with the refreshed index:\n%s\nscanning:\n%s", q, got, want)
		}
	}
	if !r.skipped["b.txt"] || !r.skipped["a.txt"] {
		t.Fatalf("the refreshed file and an untouched one should be skipped for a query neither matches: %v", r.skipped)
	}
	if st := idx.Status(); st.Dirty != 0 {
		t.Fatalf("a refreshed file is not dirty: %+v", st)
	}

	// Changed again, not through the deck: the refresh no longer vouches.
	if err := os.WriteFile(edited, []byte("later zzz_absent\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	in := map[string]any{"pattern": "zzz_absent", "output_mode": "content"}
	if got := grep(t, root, r, in); !strings.Contains(got, "b.txt:1:later zzz_absent") {
		t.Fatalf("a file changed after its refresh must be scanned:\n%s", got)
	}
}

// BenchmarkRefresh is the index's update after the deck edits one
// source file of 100 KB.
func BenchmarkRefresh(b *testing.B) {
	root := b.TempDir()
	src, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "src", "net", "http", "server.go"))
	if err != nil {
		b.Skip(err)
	}
	p := filepath.Join(root, "server.go")
	if err := os.WriteFile(p, src[:min(len(src), 100<<10)], 0o644); err != nil {
		b.Fatal(err)
	}
	idx := searchindex.Open(root)
	for b.Loop() {
		idx.Refresh(p)
	}
}
