package session

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/indusagi/induscode/deck/checkpoint"
)

// A session start prunes the checkpoint store at most once an hour: the
// prune reads and rewrites the whole store, which a busy workspace should
// not pay on every indusr call.
func TestSessionStartPrunesAtMostHourly(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := checkpoint.ForWorkspace(dir)
	if _, _, err := s.Record("n0", "edit", filepath.Join(dir, "f"), checkpoint.Prior{}); err != nil {
		t.Fatal(err)
	}
	open := func() {
		t.Helper()
		sess, err := Open(context.Background(), Options{Dir: dir, NoMCP: true, NoAddons: true})
		if err != nil {
			t.Fatal(err)
		}
		sess.Close()
	}
	stamp := filepath.Join(s.Dir(), pruneStamp)
	open()
	fi, err := os.Stat(stamp)
	if err != nil {
		t.Fatalf("no prune at the first session start: %v", err)
	}
	recent := time.Now().Add(-10 * time.Minute)
	os.Chtimes(stamp, recent, recent)
	open()
	if fi, _ = os.Stat(stamp); !fi.ModTime().Equal(recent) {
		t.Errorf("pruned again 10 minutes after the last prune")
	}
	old := time.Now().Add(-2 * time.Hour)
	os.Chtimes(stamp, old, old)
	open()
	if fi, _ = os.Stat(stamp); !fi.ModTime().After(old.Add(time.Hour)) {
		t.Errorf("not pruned two hours after the last prune")
	}
}
