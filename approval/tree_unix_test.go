//go:build unix

package approval

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// Files are read beneath the workspace: a link out of it is recorded as
// leading out and never read; a fifo is not opened (which would block).
func TestTreeNeverLeavesTheWorkspace(t *testing.T) {
	ws, outside := t.TempDir(), t.TempDir()
	write(t, filepath.Join(outside, "secret"), "outside")
	write(t, filepath.Join(ws, "a.sh"), "one")
	write(t, filepath.Join(ws, "sub", "b.sh"), "two")
	if err := os.Symlink(filepath.Join(outside, "secret"), filepath.Join(ws, "out.sh")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(ws, "outdir")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a.sh", filepath.Join(ws, "in.sh")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(ws, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	tree, err := OpenTree(ws)
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	a, _ := tree.File(filepath.Join(ws, "a.sh"))
	in, _ := tree.File(filepath.Join(ws, "in.sh"))
	out, _ := tree.File(filepath.Join(ws, "out.sh"))
	through, _ := tree.File(filepath.Join(ws, "outdir", "secret"))
	fifo, _ := tree.File(filepath.Join(ws, "fifo"))
	if !strings.HasPrefix(a.Hash, "sha256:") || !strings.HasSuffix(in.Hash, a.Hash) || !strings.HasPrefix(in.Hash, "link to a.sh") {
		t.Errorf("a %q, in %q", a.Hash, in.Hash)
	}
	if !strings.Contains(out.Hash, "leads out of the workspace") || !strings.HasPrefix(through.Hash, "unreadable") {
		t.Errorf("out %q, through %q: want neither read", out.Hash, through.Hash)
	}
	if !strings.HasPrefix(fifo.Hash, "special file") {
		t.Errorf("fifo %q", fifo.Hash)
	}
	if _, ok := tree.File(filepath.Join(outside, "secret")); ok {
		t.Error("a file outside the workspace is covered")
	}
	if err := tree.Inside(filepath.Join(ws, "outdir")); err == nil {
		t.Error("a folder linked out of the workspace counts as inside")
	}
	if err := tree.Inside(filepath.Join(ws, "sub")); err != nil {
		t.Error(err)
	}
	items, err := tree.Folder(ws)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, it := range items {
		ids = append(ids, it.ID)
	}
	if want := []string{"file a.sh", "file fifo", "file in.sh", "file out.sh", "file outdir", "file sub/b.sh"}; !slices.Equal(ids, want) {
		t.Errorf("folder items %q, want %q", ids, want)
	}
}
