package checkpoint

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/indusagi/induscode/workspace"
)

// plantLeftover leaves, in dir, the temp file of a writer killed two hours
// ago mid-write, and returns its path.
func plantLeftover(t *testing.T, dir string) string {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skipf("cannot run true: %v", err)
	}
	if err := workspace.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, fmt.Sprintf(".tmp-%d-0123456789ab", cmd.Process.Pid))
	if err := os.WriteFile(p, make([]byte, 1<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-2 * time.Hour)
	os.Chtimes(p, old, old)
	return p
}

// Temp files a killed writer left in the checkpoint folder and in its
// blobs are removed by the next record (Sweep does it at session start).
func TestStoreSweepsLeftovers(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		run  func(s *DiskStore) error
	}{
		{"next record", func(s *DiskStore) error {
			_, _, err := s.Record("n1", "write", filepath.Join(filepath.Dir(filepath.Dir(filepath.Dir(s.Dir()))), "f"), prior("x"))
			return err
		}},
		{"session start", func(s *DiskStore) error {
			if n := s.Sweep(); n != 3 {
				return fmt.Errorf("Sweep removed %d files, want 3", n)
			}
			return nil
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			s := ForWorkspace(dir)
			a := plantLeftover(t, s.Dir())
			b := plantLeftover(t, filepath.Join(s.Dir(), blobsName))
			var d string
			if c.name == "session start" {
				d = plantLeftover(t, filepath.Join(s.Dir(), aftersName))
			}
			if err := c.run(s); err != nil {
				t.Fatal(err)
			}
			for _, p := range []string{a, b, d} {
				if p == "" {
					continue
				}
				if _, err := os.Stat(p); err == nil {
					t.Errorf("leftover %s is still there", p)
				}
			}
		})
	}
}
