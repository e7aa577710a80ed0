package walk

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/indusagi/induscode/internal/procs"
)

// A walk that finds WideAfter entries says it is wide, once, and ends it
// when the walk is over; a small walk does not. Not parallel: the
// governor is process-wide.
func TestWalkSaysWhenItIsWide(t *testing.T) {
	var mu sync.Mutex
	var lifted, ended int
	remove := procs.Govern(func() func() {
		mu.Lock()
		lifted++
		mu.Unlock()
		return func() { mu.Lock(); ended++; mu.Unlock() }
	})
	defer remove()

	small := map[string]string{}
	for i := range 10 {
		small[fmt.Sprintf("f%d.txt", i)] = "x"
	}
	walked(t, tree(t, small), Filter{})
	if lifted != 0 {
		t.Fatalf("a walk of 10 files said it was wide")
	}

	large := map[string]string{}
	for i := range WideAfter + 100 {
		large[fmt.Sprintf("d%d/f%d.txt", i%16, i)] = "x"
	}
	if got := walked(t, tree(t, large), Filter{}); len(got) != WideAfter+100 {
		t.Fatalf("walked %d files, want %d", len(got), WideAfter+100)
	}
	if lifted != 1 || ended != 1 {
		t.Fatalf("a walk of %d files: lifted %d, ended %d; want 1 and 1", WideAfter+100, lifted, ended)
	}

	// Sorted lists one file at a time: its parallel consumers (grep's
	// content mode) say when they are wide.
	for range Sorted(context.Background(), Config{Root: tree(t, large)}, &Stats{}) {
	}
	if lifted != 1 {
		t.Fatal("a sorted listing said it was wide")
	}
}
