package searchindex

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/indusagi/induscode/internal/searchindex/indexfile"
)

// TestBatchedBuildEqualsOneBatch: a build whose workers hand over their
// files every few trigrams, so that many runs are merged in memory, writes
// the same table and lists as one that hands them over once.
func TestBatchedBuildEqualsOneBatch(t *testing.T) {
	root := t.TempDir()
	for i := range 40 {
		p := filepath.Join(root, "d"+string(rune('a'+i%3)), "f"+string(rune('a'+i))+".txt")
		os.MkdirAll(filepath.Dir(p), 0o755)
		body := []byte("shared words " + string(rune('a'+i%5)) + " and ünïcode " + string(rune('A'+i)) + "\n")
		if err := os.WriteFile(p, body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	st, err := Build(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	want := dumpLists(t, root)
	defer SetBatchPairs(5)()
	st2, err := Build(context.Background(), root)
	if err != nil || st2.Runs != 0 || st2.Files != st.Files || st2.Bytes != st.Bytes {
		t.Fatalf("batched build: %+v %v, one batch: %+v", st2, err, st)
	}
	got := dumpLists(t, root)
	if len(got) != len(want) {
		t.Fatalf("%d trigrams batched, %d in one batch", len(got), len(want))
	}
	for tri, paths := range want {
		if !slices.Equal(got[tri], paths) {
			t.Fatalf("trigram %06x: batched %q, one batch %q", tri, got[tri], paths)
		}
	}
}

// TestCanceledBuildLeavesNothing: a build canceled before or while its
// workers read returns the cancellation and leaves no run or temp file
// behind; one that finished first leaves its index alone.
func TestCanceledBuildLeavesNothing(t *testing.T) {
	root := t.TempDir()
	for i := range 300 {
		p := filepath.Join(root, "d"+string(rune('a'+i%7)), "f"+strconv.Itoa(i)+".txt")
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte("some words to index "+strconv.Itoa(i)+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	defer SetSpillBudget(256)()
	for n := range 4 {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		if n == 0 {
			cancel()
			close(done)
		} else {
			go func() { defer close(done); cancel() }()
		}
		_, err := Build(ctx, root)
		<-done
		left, _ := filepath.Glob(filepath.Join(root, ".indusvx", "index", "*"))
		switch {
		case err == nil:
			if len(left) != 1 || filepath.Base(left[0]) != indexfile.FileName {
				t.Fatalf("a finished build left %q", left)
			}
			os.Remove(left[0])
		case !errors.Is(err, context.Canceled):
			t.Fatalf("canceled build: %v, want %v", err, context.Canceled)
		case len(left) != 0:
			t.Fatalf("a canceled build left %q", left)
		}
	}
}
