package searchindex_test

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/indusagi/induscode/internal/searchindex"
	"github.com/indusagi/induscode/workspace"
)

// corpus writes a small tree in which a selective pattern matches one
// file of many.
func corpus(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	for i := range 40 {
		body := strings.Repeat("ordinary words in file number "+string(rune('a'+i%26))+"\n", 20)
		if i == 17 {
			body += "the needle_rare here\n"
		}
		p := filepath.Join(root, "dir"+string(rune('a'+i%5)), "f"+string(rune('a'+i%26))+string(rune('0'+i/26))+".txt")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func indexFile(root string) string {
	return filepath.Join(workspace.At(root).SearchIndex(), searchindex.FileName)
}

// TestCorruptIndexNeverTrusted damages the index file in every part
// (truncated, bytes flipped in the header, the file table and the
// posting lists, emptied, another version) and checks that grep still
// answers exactly, that a damaged file is not used, and that a rebuild
// restores it.
func TestCorruptIndexNeverTrusted(t *testing.T) {
	defer searchindex.SetRacyWindow(testWindow)()
	root := corpus(t)
	build(t, root)
	in := map[string]any{"pattern": "needle_rare", "output_mode": "content"}
	want := grep(t, root, nil, in)
	if !strings.Contains(want, "needle_rare") {
		t.Fatalf("the scan found nothing:\n%s", want)
	}
	good, err := os.ReadFile(indexFile(root))
	if err != nil {
		t.Fatal(err)
	}
	idx := searchindex.Open(root)
	if idx.Narrow("needle_rare") == nil {
		t.Fatal("a fresh index does not narrow a selective pattern")
	}
	damage := map[string]func([]byte) []byte{
		"empty":          func([]byte) []byte { return nil },
		"header only":    func(b []byte) []byte { return b[:64] },
		"truncated":      func(b []byte) []byte { return b[:len(b)/2] },
		"one byte short": func(b []byte) []byte { return b[:len(b)-1] },
		"one byte more":  func(b []byte) []byte { return append(b, 0) },
		"version":        func(b []byte) []byte { b[8]++; return b },
		"magic":          func(b []byte) []byte { b[0] = 'X'; return b },
		"build time":     func(b []byte) []byte { b[20] ^= 0x40; return b },
		"file table":     func(b []byte) []byte { b[70] ^= 1; return b },
		"middle":         func(b []byte) []byte { b[len(b)/2] ^= 0x10; return b },
		// Every posting list is damaged, including the ones the query reads.
		"posting lists": func(b []byte) []byte { return flipTail(b) },
	}
	for name, f := range damage {
		t.Run(name, func(t *testing.T) {
			bad := f(append([]byte(nil), good...))
			if err := workspace.WriteFile(indexFile(root), bad, 0o600); err != nil {
				t.Fatal(err)
			}
			c := &counting{idx: searchindex.Open(root)}
			for _, mode := range []string{"content", "files_with_matches", "count"} {
				in := map[string]any{"pattern": "needle_rare", "output_mode": mode}
				if got, want := grep(t, root, c, in), grep(t, root, nil, in); got != want {
					t.Fatalf("%s: with the damaged index:\n%s\nscanning:\n%s", mode, got, want)
				}
			}
			if n := c.skipped.Load(); n != 0 {
				t.Errorf("a damaged index let grep skip %d files", n)
			}
			if st := c.idx.Status(); st.Problem == "" {
				t.Errorf("status of a damaged index names no problem: %+v", st)
			}
		})
	}
	build(t, root)
	c := &counting{idx: searchindex.Open(root)}
	if got := grep(t, root, c, in); got != want || c.skipped.Load() == 0 {
		t.Fatalf("after a rebuild: skipped %d, got\n%s", c.skipped.Load(), got)
	}
}

// flipTail flips a bit of every byte of the posting lists, the part of
// the file after the header (64 bytes) and the file table, whose length
// the header holds at offset 32.
func flipTail(b []byte) []byte {
	for i := 64 + int(binary.LittleEndian.Uint64(b[32:])); i < len(b); i++ {
		b[i] ^= 0x01
	}
	return b
}

// TestCopiedIndexMatchesNoFile copies a tree with its index, edits the
// copy, and checks that the copied index is used for nothing: its
// entries record the inodes and change times of the original files.
func TestCopiedIndexMatchesNoFile(t *testing.T) {
	defer searchindex.SetRacyWindow(testWindow)()
	root := corpus(t)
	build(t, root)
	dst := t.TempDir()
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
	quiet(t)
	// The copy's file that matched no longer does, and another does now.
	entries, _ := filepath.Glob(filepath.Join(dst, "dir*", "*.txt"))
	for _, p := range entries {
		b, _ := os.ReadFile(p)
		s := strings.ReplaceAll(string(b), "needle_rare", "needle_gone")
		if strings.HasSuffix(p, "fa0.txt") {
			s += "needle_rare moved here\n"
		}
		os.WriteFile(p, []byte(s), 0o600)
	}
	c := &counting{idx: searchindex.Open(dst)}
	in := map[string]any{"pattern": "needle_rare", "output_mode": "content"}
	got, want := grep(t, dst, c, in), grep(t, dst, nil, in)
	if got != want || !strings.Contains(got, "fa0.txt") {
		t.Fatalf("with the copied index:\n%s\nscanning:\n%s", got, want)
	}
	if c.skipped.Load() != 0 {
		t.Errorf("the copied index let grep skip %d files", c.skipped.Load())
	}
}

// TestIndexReplacedUnderReaders rebuilds the index again and again while
// grep searches through one Index, as serve does, with collections
// forced between: a replaced index file's mapping is released only once
// no search uses it, and every answer stays the scan's.
func TestIndexReplacedUnderReaders(t *testing.T) {
	defer searchindex.SetRacyWindow(testWindow)()
	root := corpus(t)
	build(t, root)
	idx := searchindex.Open(root)
	in := map[string]any{"pattern": "needle_rare", "output_mode": "content"}
	want := grep(t, root, nil, in)
	l := &lister{counting: &counting{idx: idx}}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var bad atomic.Value
	for range 2 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				if got := grep(t, root, l, in); got != want {
					bad.Store(got)
				}
				if _, ok := idx.List(root, "needle_rare", nil); !ok {
					bad.Store("List refused an index of an unchanged tree")
				}
				runtime.GC()
			}
		})
	}
	for range 5 {
		build(t, root)
		runtime.GC()
	}
	close(stop)
	wg.Wait()
	if b := bad.Load(); b != nil {
		t.Fatalf("while the index was replaced: %v\nwant:\n%s", b, want)
	}
	if l.listed.Load() == 0 && l.skipped.Load() == 0 {
		t.Fatal("grep never used the index")
	}
}
