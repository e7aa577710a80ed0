package atomicfile

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// deadPID returns the id of a process that has exited.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skipf("cannot run true: %v", err)
	}
	return cmd.Process.Pid
}

// leftovers makes the files of the table in dir and returns which must
// survive a sweep.
func leftovers(t *testing.T, dir string) map[string]bool {
	t.Helper()
	dead := deadPID(t)
	old := time.Now().Add(-2 * time.Hour)
	files := []struct {
		name  string
		old   bool
		keeps bool
	}{
		{fmt.Sprintf(".tmp-%d-0123456789ab", dead), true, false},       // writer killed long ago
		{fmt.Sprintf(".tmp-%d-0123456789ac", dead), false, true},       // too recent to judge
		{fmt.Sprintf(".tmp-%d-0123456789ad", os.Getpid()), true, true}, // writer still alive
		{".tmp-main.go-0123456789ab", true, false},                     // older version's name
		{".tmp-123456789", true, false},                                // os.CreateTemp's name
		{".tmp-notes", true, true},                                     // a user's file
		{"notes.txt", true, true},                                      // a user's file
	}
	keep := map[string]bool{}
	for _, f := range files {
		p := filepath.Join(dir, f.name)
		if err := os.WriteFile(p, []byte("partial"), 0o600); err != nil {
			t.Fatal(err)
		}
		if f.old {
			os.Chtimes(p, old, old)
		}
		keep[f.name] = f.keeps
	}
	return keep
}

func checkSwept(t *testing.T, dir string, keep map[string]bool) {
	t.Helper()
	for name, kept := range keep {
		_, err := os.Lstat(filepath.Join(dir, name))
		if kept && err != nil {
			t.Errorf("%s was removed; it is not a dead writer's leftover", name)
		}
		if !kept && err == nil {
			t.Errorf("%s, a dead writer's leftover older than an hour, is still there", name)
		}
	}
}

// The next write in a folder removes the temp files a killed writer left
// there, and nothing else.
func TestNextWriteSweepsLeftovers(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		write func(dir string) error
	}{
		{"WriteFile", func(dir string) error { return WriteFile(filepath.Join(dir, "x"), []byte("x"), 0o644) }},
		{"WriteInRoot", func(dir string) error {
			r, err := os.OpenRoot(filepath.Dir(dir))
			if err != nil {
				return err
			}
			defer r.Close()
			return WriteInRoot(r, filepath.Join(filepath.Base(dir), "x"), []byte("x"), 0, nil)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "sub")
			os.Mkdir(dir, 0o755)
			keep := leftovers(t, dir)
			if err := c.write(dir); err != nil {
				t.Fatal(err)
			}
			checkSwept(t, dir, keep)
		})
	}
}
