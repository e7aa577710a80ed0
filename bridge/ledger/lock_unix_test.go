//go:build unix

package ledger

import (
	"path/filepath"
	"syscall"
	"testing"
)

// A process forked while a log is open (a server being started) shares
// the open file until it execs. Closing the log must still free it for the
// next session at once; a duplicate descriptor stands in for the child.
func TestCloseReleasesLockHeldByDuplicate(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "l.jsonl")
	f, _, _, err := OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dup, err := syscall.Dup(int(f.f.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(dup)
	f.Close()
	g, _, _, err := OpenFile(path)
	if err != nil {
		t.Fatalf("the next session cannot open the log: %v", err)
	}
	g.Close()
}
