//go:build unix

package search

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestGrepSpecialFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	res := run(t, GrepTool(Options{}), dir, `{"pattern":"x","path":"pipe"}`)
	if !res.IsError || !strings.Contains(res.PlainText(), "is not a regular file or directory") {
		t.Errorf("a FIFO must be refused, not opened: %s", res.PlainText())
	}
	// A FIFO found by the walk is skipped, not opened (which would block).
	writeFile(t, dir, "a.txt", []byte("x\n"))
	res = run(t, GrepTool(Options{}), dir, `{"pattern":"x"}`)
	if res.PlainText() != "Found 1 file\na.txt" {
		t.Errorf("walk with a FIFO: %s", res.PlainText())
	}
}

// hugeDir returns a directory for a file of size bytes: in /dev/shm when
// that memory file system has room, so a test measures the search rather
// than the disk, else a temp dir.
func hugeDir(t *testing.T, size uint64) string {
	t.Helper()
	shm, err := os.MkdirTemp("/dev/shm", "indusr-search-")
	if err != nil {
		return t.TempDir()
	}
	t.Cleanup(func() { os.RemoveAll(shm) })
	var st syscall.Statfs_t
	if syscall.Statfs(shm, &st) != nil || uint64(st.Bavail)*uint64(st.Bsize) < size {
		return t.TempDir()
	}
	return shm
}
