//go:build linux

package searchindex_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"
	"golang.org/x/sys/unix"

	"github.com/indusagi/induscode/internal/searchindex"
)

// TestWatchDoesNotTrustSilence changes files in the ways a watch cannot
// see: through another name of the file (a hard link outside the
// workspace, one in a folder the walk ignores) and through a shared
// mapping. A file that had another name at the last check of every stamp
// is found by the very next search; a change nothing could have shown is
// found once the watch's trust has run out, by the search that checks
// every stamp again. Every answer is then the scan's.
func TestWatchDoesNotTrustSilence(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	defer searchindex.SetRacyWindow(testWindow)()
	defer searchindex.SetTrustFor(time.Hour)()
	var ahead atomic.Int64 // how far the keeper's clock is ahead
	defer searchindex.SetClock(func() time.Time { return time.Now().Add(time.Duration(ahead.Load())) })()
	root, outside := t.TempDir(), t.TempDir()
	for name, body := range map[string]string{
		".git/HEAD": "ref: refs/heads/main\n", ".gitignore": "ignored/\n", "ignored/x": "x\n",
		"a.txt": "", "b.txt": "", "c.txt": "", "d.txt": "",
	} {
		p := filepath.Join(root, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if body == "" {
			body = strings.Repeat("plain words\n", 10)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := func(from, to string) {
		t.Helper()
		if err := os.Link(filepath.Join(root, from), to); err != nil {
			t.Fatal(err)
		}
	}
	link("b.txt", filepath.Join(outside, "b"))
	link("c.txt", filepath.Join(root, "ignored", "c"))
	build(t, root)
	ctx, cancel := context.WithCancel(context.Background())
	k := searchindex.Keep(ctx, root)
	defer k.Wait()
	defer cancel()
	in := map[string]any{"pattern": "needle_silent", "output_mode": "files_with_matches"}
	grepBoth := func(want string) {
		t.Helper()
		got, scan := grep(t, root, k, in), grep(t, root, nil, in)
		if got != scan || !strings.Contains(got, want) {
			t.Fatalf("with the watched index:\n%s\nscanning (want %s):\n%s", got, want, scan)
		}
	}
	grepBoth("") // arms the watch
	quiet(t)
	appendTo := func(p string) {
		t.Helper()
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString("needle_silent\n")
		f.Close()
	}
	appendTo(filepath.Join(outside, "b"))
	grepBoth("b.txt")
	appendTo(filepath.Join(root, "ignored", "c"))
	grepBoth("c.txt")

	// A write through a shared mapping makes no event.
	f, err := os.OpenFile(filepath.Join(root, "a.txt"), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	mem, err := unix.Mmap(int(f.Fd()), 0, 64, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	copy(mem, "needle_silent")
	unix.Msync(mem, unix.MS_SYNC)
	unix.Munmap(mem)
	f.Close()
	// A link made after the check, written through.
	link("d.txt", filepath.Join(outside, "d"))
	appendTo(filepath.Join(outside, "d"))
	quiet(t)
	ahead.Store(int64(2 * time.Hour)) // the watch's trust has run out
	grepBoth("a.txt")
	grepBoth("d.txt")
}
