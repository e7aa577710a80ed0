package flock

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Two opens of one lock file exclude each other, in one process as across
// processes; a released lock can be taken again.
func TestTryLockSeesAHeldLock(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "l")
	h, err := Acquire(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := TryLock(f); !errors.Is(err, ErrLocked) {
		t.Fatalf("TryLock on a held lock: %v, want ErrLocked", err)
	}
	if err := h.Release(); err != nil {
		t.Fatal(err)
	}
	if err := TryLock(f); err != nil {
		t.Fatalf("TryLock after release: %v", err)
	}
}

// Any path, however long, gets a short lock name, the same every time.
func TestTargetNamesAreShortAndStable(t *testing.T) {
	t.Parallel()
	long := "/w/" + strings.Repeat("x", 255)
	for _, p := range []string{"/w/a", long} {
		a, b := Target("/d", p), Target("/d", p)
		if a != b || len(filepath.Base(a)) > 40 || filepath.Dir(a) != "/d" {
			t.Errorf("Target(%q) = %q, %q", p, a, b)
		}
	}
	if Target("/d", "/w/a") == Target("/d", "/w/b") {
		t.Error("two paths share a lock")
	}
}
