package checkpoint

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// failReader fails the test if anything reads it.
type failReader struct{ t *testing.T }

func (r failReader) Read([]byte) (int, error) {
	r.t.Error("the prior content was read although the store holds it under the known hash")
	return 0, errors.New("must not be read")
}

// A prior whose hash the caller knows (the read gate's) and whose content
// the store already holds is recorded without reading or writing it: as
// a blob, or as the content an earlier node left.
func TestRecordLooksUpTheKnownHashFirst(t *testing.T) {
	t.Parallel()
	content := []byte(strings.Repeat("line\n", 1000))
	sum := sha256.Sum256(content)
	hash := hex.EncodeToString(sum[:])
	cases := []struct {
		name  string
		setup func(t *testing.T, s *DiskStore, dir string)
	}{
		{"stored as an earlier prior", func(t *testing.T, s *DiskStore, dir string) {
			if _, _, err := s.Record("n0", "edit", filepath.Join(dir, "other"), Prior{Exists: true, Content: bytes.NewReader(content)}); err != nil {
				t.Fatal(err)
			}
		}},
		{"left by an earlier node", func(t *testing.T, s *DiskStore, dir string) {
			f := filepath.Join(dir, "f")
			os.WriteFile(f, []byte("before"), 0o644)
			if _, _, err := s.Record("n0", "edit", f, prior("before")); err != nil {
				t.Fatal(err)
			}
			os.WriteFile(f, content, 0o644)
			if err := s.Settle("n0", f, Outcome{Exists: true, Hash: hash, File: f}); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			s := ForWorkspace(dir)
			c.setup(t, s, dir)
			e, added, err := s.Record("n1", "edit", filepath.Join(dir, "f"), Prior{Exists: true, Content: failReader{t}, Hash: hash, Size: int64(len(content)), Mode: 0o644})
			if err != nil || !added || e.Hash != hash {
				t.Fatalf("record: %+v %v %v", e, added, err)
			}
			got, err := s.Content(e)
			if err != nil || !bytes.Equal(got, content) {
				t.Fatalf("content: %v", err)
			}
		})
	}
}

// A record appends to the journal; the snapshot is not rewritten until the
// journal has grown large, and then both fold into one snapshot without
// losing a node. A torn last line (a crash mid-append) is ignored.
func TestIndexIsAppendedNotRewritten(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := ForWorkspace(dir)
	s.compactAt = 8 << 10
	snap := filepath.Join(s.Dir(), indexName)
	journal := filepath.Join(s.Dir(), journalName)
	record := func(i int) {
		t.Helper()
		if _, _, err := s.Record(fmt.Sprintf("n%04d", i), "edit", filepath.Join(dir, fmt.Sprintf("f%d", i)), Prior{}); err != nil {
			t.Fatal(err)
		}
	}
	record(0)
	if _, err := os.Stat(snap); err == nil {
		t.Errorf("the first record wrote a whole snapshot")
	}
	size := func(p string) int64 { fi, _ := os.Stat(p); return fi.Size() }
	last := size(journal)
	for i := 1; i < 20; i++ {
		record(i)
		if n := size(journal); n <= last {
			t.Fatalf("record %d did not append to the journal (%d -> %d bytes)", i, last, n)
		} else {
			last = n
		}
	}
	if _, err := os.Stat(snap); err == nil {
		t.Errorf("20 small records rewrote the snapshot")
	}
	// A crash mid-append leaves half a line; it is ignored, then cut off.
	f, _ := os.OpenFile(journal, os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString(`{"node":{"id":"torn","fi`)
	f.Close()
	if nodes, err := s.Nodes(); err != nil || len(nodes) != 20 {
		t.Fatalf("after a torn line: %d nodes, %v", len(nodes), err)
	}
	record(20)
	// Enough records to pass the compaction threshold.
	n := 21
	for i := 0; i < 500 && func() bool { _, err := os.Stat(snap); return err != nil }(); i++ {
		record(n)
		n++
	}
	if _, err := os.Stat(snap); err != nil {
		t.Fatalf("the journal was never compacted into a snapshot (%d bytes)", size(journal))
	}
	record(n) // and the new journal continues the snapshot
	n++
	nodes, err := ForWorkspace(dir).Nodes()
	if err != nil || len(nodes) != n {
		t.Fatalf("after compaction: %d nodes, want %d (%v)", len(nodes), n, err)
	}
	for i, nd := range nodes {
		if nd.ID != fmt.Sprintf("n%04d", i) {
			t.Fatalf("node %d is %s", i, nd.ID)
		}
	}
}
