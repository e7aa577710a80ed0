package searchindex

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/indusagi/induscode/internal/searchindex/indexfile"
	"github.com/indusagi/induscode/internal/searchindex/trigram"
	"github.com/indusagi/induscode/internal/testtree"
)

// TestIndexCutShortUnderReaders cuts the index file short in place (as
// cp over it or truncate would; the deck itself only ever replaces it
// whole) while an Index holds it mapped: the readers that still hold the
// old snapshot fault on its lost pages, and each turns that into a
// refused index instead of a crash; grep then scans.
func TestIndexCutShortUnderReaders(t *testing.T) {
	defer SetRacyWindow(10 * time.Millisecond)()
	root := t.TempDir()
	files := map[string]string{}
	for i := range 60 {
		body := strings.Repeat("ordinary text of a file\n", 300)
		if i == 7 {
			body += "needle_cut here\n"
		}
		files["d"+string(rune('a'+i%6))+"/f"+string(rune('a'+i%26))+string(rune('0'+i/26))+".txt"] = body
	}
	testtree.Write(t, root, files)
	time.Sleep(30 * time.Millisecond) // past the racy window
	if _, err := Build(context.Background(), root); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(root, "da", "fa0.txt") // holds no needle
	for name, read := range map[string]func(x *Index, s *snapshot) error{
		"narrowing": func(x *Index, s *snapshot) error {
			skip := x.Narrow("needle_cut")
			if skip == nil || !skip(file) {
				t.Fatal("a sound index does not skip a file without the needle")
			}
			cutShort(t, x)
			if skip(file) {
				t.Error("a file was skipped on the word of an index cut short")
			}
			return nil
		},
		"listing": func(x *Index, s *snapshot) error {
			cutShort(t, x)
			if paths, ok := x.list(s, root, "needle_cut", nil, listHooks{}); ok {
				t.Errorf("listed %d files from an index cut short", len(paths))
			}
			return nil
		},
		"evaluating": func(x *Index, s *snapshot) error {
			cutShort(t, x)
			_, err := x.eval(s, trigram.Plan("needle_cut"))
			return err
		},
		"watching": func(x *Index, s *snapshot) error {
			cutShort(t, x)
			k := &Keeper{Index: x, ctx: context.Background()}
			if tw := k.watch(s); tw != nil {
				tw.Close()
				k.wg.Wait()
				t.Error("a watcher was set up from an index cut short")
			}
			return nil
		},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := Build(context.Background(), root); err != nil {
				t.Fatal(err)
			}
			x := Open(root)
			s := x.load()
			if s == nil {
				t.Fatalf("no index: %v", x.bad)
			}
			if err := read(x, s); err != nil && !errors.Is(err, indexfile.ErrCorrupt) {
				t.Errorf("the error is %v, want one saying the index is corrupt", err)
			}
			if x.Narrow("needle_cut") != nil {
				t.Error("the index cut short is still used")
			}
			if st := x.Status(); st.Problem == "" {
				t.Errorf("status of an index cut short names no problem: %+v", st)
			}
		})
	}
}

// cutShort truncates x's index file in place, keeping its inode.
func cutShort(t *testing.T, x *Index) {
	t.Helper()
	if err := os.Truncate(x.path, 0); err != nil {
		t.Fatal(err)
	}
}
