package deck_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/indusagi/induscode/deck"
)

// refreshRecorder is a search index that records the files it was told
// to read again.
type refreshRecorder struct {
	mu    sync.Mutex
	paths []string
}

func (r *refreshRecorder) Narrow(string) func(string) bool { return nil }
func (r *refreshRecorder) Refresh(paths ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.paths = append(r.paths, paths...)
}

// TestWriteAndEditRefreshTheSearchIndex: the deck's write and edit tell
// the search index which file they changed, in the same call.
func TestWriteAndEditRefreshTheSearchIndex(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	idx := &refreshRecorder{}
	d, err := deck.Provision(deck.Survey, deck.Setup{Dir: dir, Framework: deck.Framework{SearchIndex: idx}})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	ctx := context.Background()
	if r := d.Box().Run(ctx, "write", json.RawMessage(`{"path":"a.txt","content":"one\n"}`)); r.IsError {
		t.Fatalf("write: %v", r)
	}
	if r := d.Box().Run(ctx, "read", json.RawMessage(`{"path":"a.txt"}`)); r.IsError {
		t.Fatalf("read: %v", r)
	}
	if r := d.Box().Run(ctx, "edit", json.RawMessage(`{"path":"a.txt","old_string":"one","new_string":"two"}`)); r.IsError {
		t.Fatalf("edit: %v", r)
	}
	want := filepath.Join(dir, "a.txt")
	idx.mu.Lock()
	defer idx.mu.Unlock()
	if !slices.Equal(idx.paths, []string{want, want}) {
		t.Fatalf("refreshed %q, want %q twice (write, then edit)", idx.paths, want)
	}
}
