package checkpoint

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
)

// A prior whose hash is known is stored as a second name of the file's
// inode (the file is durable already), not as a copy: the edit that
// follows replaces the path with a new inode and the store keeps the old.
func TestRecordLinksTheFileInsteadOfCopying(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := ForWorkspace(dir)
	path := filepath.Join(dir, "f")
	content := []byte("the content before the edit\n")
	os.WriteFile(path, content, 0o644)
	sum := sha256.Sum256(content)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	e, _, err := s.Record("n1", "edit", path, Prior{Exists: true, Content: f, Mode: 0o644, Hash: hex.EncodeToString(sum[:]), Size: int64(len(content))})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := os.Stat(path)
	b, err := os.Stat(filepath.Join(s.Dir(), blobsName, e.Hash))
	if err != nil || !os.SameFile(a, b) {
		t.Fatalf("the prior was copied, not linked (%v)", err)
	}
	// The edit replaces the path; the stored content stays.
	os.WriteFile(path+".new", []byte("edited\n"), 0o644)
	os.Rename(path+".new", path)
	if got, err := s.Content(e); err != nil || string(got) != string(content) {
		t.Fatalf("content after the edit: %q %v", got, err)
	}
}
