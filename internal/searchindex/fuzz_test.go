package searchindex

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/indusagi/induscode/internal/searchindex/indexfile"
	"github.com/indusagi/induscode/internal/searchindex/trigram"
)

// FuzzReadIndex feeds arbitrary bytes to the reader: it refuses them or
// reads them, and a query over what it read never panics or names a
// file beyond the table.
func FuzzReadIndex(f *testing.F) {
	root := f.TempDir()
	for name, body := range map[string]string{"a.txt": "hello world\nfoo bar\n", "d/b.go": "package b // hello\n", "c.bin": "x\x00y"} {
		p := filepath.Join(root, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(body), 0o644)
	}
	if _, err := Build(context.Background(), root); err != nil {
		f.Fatal(err)
	}
	seed, err := os.ReadFile(Open(root).path)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add(seed[:indexfile.HeaderSize])
	f.Add([]byte(indexfile.Magic))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(dir, "idx")
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		fh, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		defer fh.Close()
		s, _, err := readSnapshot(fh)
		if err != nil {
			return
		}
		for _, expr := range []string{"hello", "(?i)foo|bar", "package"} {
			cand, err := s.eval(trigram.Plan(expr))
			if err != nil {
				continue
			}
			if len(cand) != int(s.h.NFiles+63)/64 {
				t.Fatalf("candidate set of %d words for %d files", len(cand), s.h.NFiles)
			}
		}
		for id := range uint32(s.files.Len()) {
			p := s.files.Path(id)
			if got, ok := s.lookup(p); !ok || got != id {
				t.Fatalf("file %q (id %d) not found by its own path: %d, %v", p, id, got, ok)
			}
			if !indexfile.ValidRel(p) {
				t.Fatalf("file %d has path %q", id, p)
			}
		}
		for i := range uint32(s.watched.Len()) {
			if p := s.watched.Path(i); !indexfile.ValidRel(p) {
				t.Fatalf("watched path %d is %q", i, p)
			}
		}
	})
}
