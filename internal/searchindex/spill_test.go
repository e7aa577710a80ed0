package searchindex

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/indusagi/induscode/internal/searchindex/indexfile"
)

// lists reads every posting list of the index at root as the paths of
// its files, by trigram.
func dumpLists(t *testing.T, root string) map[uint32][]string {
	t.Helper()
	s := Open(root).load()
	if s == nil {
		t.Fatal("no index")
	}
	out := map[uint32][]string{}
	for k := range s.dir.Firsts {
		b, err := s.block(k)
		if err != nil {
			t.Fatal(err)
		}
		for i := range len(b) / indexfile.LookupSize {
			e := indexfile.EntryAt(b, i)
			data, err := s.postings(e)
			if err != nil {
				t.Fatal(err)
			}
			var ids []uint32
			err = indexfile.DecodePostings(data, s.h.NFiles, func(id uint32) { ids = append(ids, id) })
			if err != nil {
				t.Fatal(err)
			}
			var paths []string
			for _, id := range ids {
				paths = append(paths, strings.Clone(s.files.Path(id)))
			}
			slices.Sort(paths)
			out[e.Tri] = paths
		}
	}
	return out
}

// TestSpilledBuildEqualsInMemory: a build whose budget makes it spill a
// run after nearly every file writes the same posting lists as one that
// holds them all in memory.
func TestSpilledBuildEqualsInMemory(t *testing.T) {
	root := t.TempDir()
	for i := range 60 {
		p := filepath.Join(root, fmt.Sprintf("d%d", i%4), fmt.Sprintf("f%d.txt", i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		body := strings.Repeat(fmt.Sprintf("word%d shared text %d\n", i%7, i), 1+i%5)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	st, err := Build(context.Background(), root)
	if err != nil || st.Runs != 0 {
		t.Fatalf("in-memory build: %+v %v", st, err)
	}
	want := dumpLists(t, root)
	defer SetSpillBudget(64)()
	st, err = Build(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	if st.Runs < 30 {
		t.Fatalf("a build over a 64-byte budget spilled only %d runs", st.Runs)
	}
	got := dumpLists(t, root)
	if len(got) != len(want) {
		t.Fatalf("%d trigrams spilled, %d in memory", len(got), len(want))
	}
	for tri, paths := range want {
		if !slices.Equal(got[tri], paths) {
			t.Fatalf("trigram %06x: spilled %q, in memory %q", tri, got[tri], paths)
		}
	}
	left, _ := filepath.Glob(filepath.Join(root, ".indusvx", "index", "*"))
	if len(left) != 1 {
		t.Fatalf("runs left behind: %q", left)
	}
}
