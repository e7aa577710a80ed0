//go:build unix

package testtree

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// Hostile is one thing a repository can plant where a config or briefing
// file belongs, to hang, exhaust or mislead whoever reads it.
type Hostile struct {
	Name string
	// Plant puts it at path; outside is a folder beyond the workspace
	// and valid the content a reader would accept, for the plants that
	// lead there (a link out of the workspace must not be followed even
	// to a good file).
	Plant func(t testing.TB, path, outside, valid string)
}

// HugeSize is the apparent size of the sparse file planted: far beyond
// any bound, and it costs no disk.
const HugeSize = 8 << 30

// Hostiles are the plants every reader of repository files is tested
// against. nested says the file lies in a folder of the workspace (not at
// its top), so that folder can itself be a link out.
func Hostiles(nested bool) []Hostile {
	mkdir := func(t testing.TB, path string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	link := func(t testing.TB, target, path string) {
		t.Helper()
		mkdir(t, path)
		if err := os.Symlink(target, path); err != nil {
			t.Fatal(err)
		}
	}
	all := []Hostile{
		{"link to /dev/zero", func(t testing.TB, path, _, _ string) { link(t, "/dev/zero", path) }},
		{"named pipe", func(t testing.TB, path, _, _ string) {
			mkdir(t, path)
			if err := syscall.Mkfifo(path, 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{"huge sparse file", func(t testing.TB, path, _, valid string) {
			mkdir(t, path)
			f, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if _, err := f.WriteString(valid); err != nil {
				t.Fatal(err)
			}
			if err := f.Truncate(HugeSize); err != nil {
				t.Fatal(err)
			}
		}},
		{"link out of the workspace", func(t testing.TB, path, outside, valid string) {
			target := filepath.Join(outside, "planted-"+filepath.Base(path))
			if err := os.WriteFile(target, []byte(valid), 0o644); err != nil {
				t.Fatal(err)
			}
			link(t, target, path)
		}},
		{"folder under a link out of the workspace", func(t testing.TB, path, outside, valid string) {
			dir := filepath.Join(outside, "planted-dir")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, filepath.Base(path)), []byte(valid), 0o644); err != nil {
				t.Fatal(err)
			}
			link(t, dir, filepath.Dir(path))
		}},
	}
	if !nested {
		all = all[:len(all)-1]
	}
	return all
}

// hangBound is how long a read of a planted file may take before the test
// calls it hung: a bounded read of a refused file takes milliseconds, and
// the bound is generous for two busy cores under -race.
const hangBound = 60 * time.Second

// NoHang runs read and fails the test when it has not returned within a
// generous bound (a reader waiting on a named pipe never returns).
func NoHang(t testing.TB, what string, read func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		read()
	}()
	select {
	case <-done:
	case <-time.After(hangBound):
		t.Fatalf("%s: still reading after %v (hung on a planted file)", what, hangBound)
	}
}
