package checkpoint

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/indusagi/induscode/workspace"
)

// stores returns one store of each kind, fresh.
func stores(t *testing.T) map[string]Store {
	return map[string]Store{
		"memory": NewMemStore(),
		"disk":   NewDiskStore(filepath.Join(t.TempDir(), "cp")),
	}
}

func prior(s string) Prior { return Prior{Exists: true, Content: strings.NewReader(s), Mode: 0o640} }

func TestStoreFirstSeenWins(t *testing.T) {
	t.Parallel()
	for name, s := range stores(t) {
		t.Run(name, func(t *testing.T) {
			e, added, err := s.Record("n1", "write", "/w/a.txt", prior("one"))
			if err != nil || !added || !e.Exists || e.Size != 3 {
				t.Fatalf("first record: %+v %v %v", e, added, err)
			}
			// A later record of the same (node, path) changes nothing and
			// does not even read its content.
			e2, added, err := s.Record("n1", "edit", "/w/a.txt", Prior{Exists: true, Content: failingReader{}})
			if err != nil || added || e2 != e {
				t.Fatalf("second record: %+v %v %v", e2, added, err)
			}
			// The same path under another node is a new record.
			if _, added, _ := s.Record("n2", "edit", "/w/a.txt", prior("two")); !added {
				t.Fatal("record under a second node was not added")
			}
			// A file that did not exist is recorded as such.
			e3, _, err := s.Record("n1", "write", "/w/new.txt", Prior{})
			if err != nil || e3.Exists || e3.Hash != "" {
				t.Fatalf("absent file: %+v %v", e3, err)
			}
			nodes, err := s.Nodes()
			if err != nil || len(nodes) != 2 || nodes[0].ID != "n1" || nodes[1].ID != "n2" {
				t.Fatalf("nodes: %+v %v", nodes, err)
			}
			if got := fmt.Sprint(nodes[0].Tools, len(nodes[0].Files)); got != "[write] 2" {
				t.Errorf("node n1 tools and files: %s", got)
			}
			b, err := s.Content(nodes[0].Files[0])
			if err != nil || string(b) != "one" || nodes[0].Files[0].Mode != 0o640 {
				t.Errorf("content of n1 a.txt: %q %v mode %v", b, err, nodes[0].Files[0].Mode)
			}
			if _, err := s.Content(nodes[0].Files[1]); err == nil {
				t.Errorf("content of a file that did not exist should be an error")
			}
		})
	}
}

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("must not be read") }

func TestStoreForgetAndDrop(t *testing.T) {
	t.Parallel()
	for name, s := range stores(t) {
		t.Run(name, func(t *testing.T) {
			s.Record("n1", "write", "/w/a", prior("a"))
			s.Record("n1", "write", "/w/b", prior("b"))
			s.Record("n2", "write", "/w/a", prior("shared"))
			s.Record("n3", "write", "/w/c", prior("shared"))
			if err := s.Forget("n1", "/w/b"); err != nil {
				t.Fatal(err)
			}
			if err := s.Forget("n2", "/w/a"); err != nil { // n2 is left empty and goes
				t.Fatal(err)
			}
			nodes, _ := s.Nodes()
			if len(nodes) != 2 || nodes[0].ID != "n1" || len(nodes[0].Files) != 1 || nodes[1].ID != "n3" {
				t.Fatalf("after forget: %+v", nodes)
			}
			if err := s.Drop("n1"); err != nil {
				t.Fatal(err)
			}
			nodes, _ = s.Nodes()
			if len(nodes) != 1 || nodes[0].ID != "n3" {
				t.Fatalf("after drop: %+v", nodes)
			}
			// n3's content was shared with the forgotten n2 record; it stays.
			if b, err := s.Content(nodes[0].Files[0]); err != nil || string(b) != "shared" {
				t.Errorf("n3 content: %q %v", b, err)
			}
			if ds, ok := s.(*DiskStore); ok {
				blobs, _ := os.ReadDir(filepath.Join(ds.Dir(), blobsName))
				if len(blobs) != 1 {
					t.Errorf("unreferenced contents were not removed: %d blobs left", len(blobs))
				}
			}
		})
	}
}

// Two DiskStores on one directory (as two indusr processes would have)
// see each other's records, and concurrent records all land.
func TestDiskStoreSharedBetweenInstances(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "cp")
	a, b := NewDiskStore(dir), NewDiskStore(dir)
	var wg sync.WaitGroup
	for i := range 20 {
		s := a
		if i%2 == 1 {
			s = b
		}
		wg.Go(func() {
			if _, _, err := s.Record(fmt.Sprintf("n%02d", i), "write", fmt.Sprintf("/w/f%d", i), prior(fmt.Sprint(i))); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	nodes, err := NewDiskStore(dir).Nodes()
	if err != nil || len(nodes) != 20 {
		t.Fatalf("a third instance sees %d nodes (%v)", len(nodes), err)
	}
}

func TestDiskStoreDetectsCorruption(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "cp")
	s := NewDiskStore(dir)
	e, _, err := s.Record("n1", "write", "/w/a", prior("original"))
	if err != nil {
		t.Fatal(err)
	}
	blob := filepath.Join(dir, blobsName, e.Hash)
	os.Chmod(blob, 0o600)
	if err := os.WriteFile(blob, []byte("tampered"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Content(e); !errors.Is(err, ErrCorrupt) {
		t.Errorf("tampered content: %v, want ErrCorrupt", err)
	}
	if err := os.WriteFile(filepath.Join(dir, indexName), []byte(`{"version":1,"nodes":[{"id":"x","files":[{"path":"rel","exists":false}]}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = s.Nodes()
	if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "move it aside") {
		t.Errorf("bad index: %v", err)
	}
	// A record refuses to build on a corrupt index rather than replace it.
	if _, _, err := s.Record("n2", "write", "/w/b", Prior{}); !errors.Is(err, ErrCorrupt) {
		t.Errorf("record on a corrupt index: %v", err)
	}
}

// A workspace store keeps paths relative, so the history survives a move.
func TestWorkspaceStoreIsRelocatable(t *testing.T) {
	t.Parallel()
	old := filepath.Join(t.TempDir(), "old")
	s := ForWorkspace(old)
	if _, _, err := s.Record("n1", "write", filepath.Join(old, "src", "a.go"), prior("package a")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Record("n1", "write", "/elsewhere/b", Prior{}); err != nil {
		t.Fatal(err)
	}
	idx, _ := os.ReadFile(filepath.Join(workspace.At(old).Checkpoints(), journalName))
	if !strings.Contains(string(idx), `"path":"src/a.go"`) || !strings.Contains(string(idx), `"path":"/elsewhere/b"`) {
		t.Fatalf("index paths:\n%s", idx)
	}
	moved := filepath.Join(filepath.Dir(old), "moved")
	if err := os.Rename(old, moved); err != nil {
		t.Fatal(err)
	}
	nodes, err := ForWorkspace(moved).Nodes()
	if err != nil || nodes[0].Files[0].Path != filepath.Join(moved, "src", "a.go") {
		t.Fatalf("after the move: %+v %v", nodes, err)
	}
}

func TestDiskStoreCreatesNothingUntilARecord(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "cp")
	s := NewDiskStore(dir)
	if nodes, err := s.Nodes(); err != nil || len(nodes) != 0 {
		t.Fatalf("empty store: %v %v", nodes, err)
	}
	s.Drop("x")
	s.Forget("x", "/y")
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("reading an empty store created %s", dir)
	}
}

func TestRecordRefusesBadArguments(t *testing.T) {
	t.Parallel()
	for name, s := range stores(t) {
		for _, c := range []struct{ node, path string }{{"", "/a"}, {"n", "rel"}, {"n", "/a/../b"}} {
			if _, _, err := s.Record(c.node, "write", c.path, Prior{}); err == nil {
				t.Errorf("%s: Record(%q, %q) succeeded", name, c.node, c.path)
			}
		}
	}
}
