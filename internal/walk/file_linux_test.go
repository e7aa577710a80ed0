package walk

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// openFDs counts the descriptors the process holds.
func openFDs(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}

// readFD reads a whole descriptor and closes it.
func readFD(t *testing.T, fd int) string {
	t.Helper()
	f := os.NewFile(uintptr(fd), "walked")
	defer f.Close()
	var b strings.Builder
	buf := make([]byte, 4096)
	for {
		n, err := f.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			return b.String()
		}
	}
}

// A walk by name opens each file through its directory and reads what is
// in it, and every directory it kept open is closed once the walk ends:
// walked to the end, stopped by the consumer, or cancelled.
func TestByNameClosesEveryDirectory(t *testing.T) {
	root := tree(t, map[string]string{
		"a.txt": "A", "d/b.txt": "B", "d/e/c.txt": "C", "d/e/f/g.txt": "G", "z.txt": "Z",
	})
	before := openFDs(t)

	// Sorted to the end, every file used.
	got := map[string]string{}
	for f := range Sorted(t.Context(), Config{Root: root, ByName: true}, &Stats{}) {
		fd, err := f.OpenFD(syscall.O_RDONLY | syscall.O_CLOEXEC)
		if err != nil {
			t.Fatal(err)
		}
		got[strings.TrimPrefix(f.Path, root+"/")] = readFD(t, fd)
	}
	if len(got) != 5 || got["d/e/f/g.txt"] != "G" || got["a.txt"] != "A" {
		t.Errorf("read by name: %v", got)
	}
	if n := openFDs(t); n != before {
		t.Errorf("after a whole sorted walk %d descriptors are open, %d before", n, before)
	}

	// Sorted, the consumer stops after the second file (released, not used).
	n := 0
	for f := range Sorted(t.Context(), Config{Root: root, ByName: true}, &Stats{}) {
		f.Release()
		if n++; n == 2 {
			break
		}
	}
	if n := openFDs(t); n != before {
		t.Errorf("after a stopped sorted walk %d descriptors are open, %d before", n, before)
	}

	// Parallel, cancelled from the first visit: the files left on the
	// stack are released by the walk.
	ctx, cancel := context.WithCancel(t.Context())
	var mu sync.Mutex
	Walk(ctx, Config{Root: root, ByName: true, Workers: 2, Visit: func(_ int, f File) {
		mu.Lock()
		defer mu.Unlock()
		cancel()
		if _, err := f.ModTime(); err != nil {
			t.Error(err)
		}
	}}, &Stats{})
	if n := openFDs(t); n != before {
		t.Errorf("after a cancelled walk %d descriptors are open, %d before", n, before)
	}
}

// A file that a symlink replaced after its directory was listed is not
// followed: the walk never reads outside the tree through a link planted
// while it runs.
func TestByNameDoesNotFollowASwappedInLink(t *testing.T) {
	secret := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secret, []byte("outside"), 0o600); err != nil {
		t.Fatal(err)
	}
	root := tree(t, map[string]string{"a.txt": "A", "b.txt": "B"})
	for f := range Sorted(t.Context(), Config{Root: root, ByName: true}, &Stats{}) {
		if filepath.Base(f.Path) == "b.txt" {
			if err := os.Remove(f.Path); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(secret, f.Path); err != nil {
				t.Fatal(err)
			}
		}
		fd, err := f.OpenFD(syscall.O_RDONLY | syscall.O_CLOEXEC)
		if filepath.Base(f.Path) == "a.txt" {
			if err != nil {
				t.Fatal(err)
			}
			syscall.Close(fd)
			continue
		}
		if err == nil {
			t.Errorf("opened %s, now a link out of the tree: read %q", f.Path, readFD(t, fd))
		} else if !errors.Is(err, syscall.ELOOP) {
			t.Errorf("open of the swapped-in link: %v, want ELOOP", err)
		}
	}
}

// A walk of more directories than it may keep open at once still opens
// every file (by its whole path past the budget) and leaves none open.
func TestByNameBeyondTheBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("walks a large part of GOROOT")
	}
	root := filepath.Join(runtime.GOROOT(), "src")
	before := openFDs(t)
	var kept []File
	held, most := 0, 0
	for f := range Sorted(t.Context(), Config{Root: root, ByName: true}, &Stats{}) {
		// Hold every file until the end: the walk must fall back to
		// paths rather than keep thousands of directories open.
		kept = append(kept, f)
		if f.dir != nil {
			held++
			most = max(most, int(f.dir.budget.open.Load()))
		}
		if len(kept) == 20000 {
			break
		}
	}
	if most > maxOpenDirs || held == 0 || held == len(kept) {
		t.Errorf("%d files, %d held an open directory, at most %d open at once (budget %d)", len(kept), held, most, maxOpenDirs)
	}
	for _, f := range kept[len(kept)-3:] {
		fd, err := f.OpenFD(syscall.O_RDONLY | syscall.O_CLOEXEC)
		if err != nil {
			t.Fatal(err)
		}
		syscall.Close(fd)
	}
	for _, f := range kept[:len(kept)-3] {
		f.Release()
	}
	if n := openFDs(t); n != before {
		t.Errorf("%d descriptors open after every file was released, %d before", n, before)
	}
}
