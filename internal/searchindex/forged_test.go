//go:build linux

package searchindex_test

import (
	"os"
	"syscall"
	"testing"

	"github.com/indusagi/induscode/internal/searchindex"
)

// TestForgedIndexRefusedFromItsHeader plants index files whose header,
// checksum and all, claims a body of gigabytes that is not there (a
// sparse file: a few bytes on disk, 32 GiB to whoever reads it). Each is
// refused from its header and its size, without its body being read: the
// process's peak memory does not grow by the size claimed, and grep
// answers as a scan.
func TestForgedIndexRefusedFromItsHeader(t *testing.T) {
	defer searchindex.SetRacyWindow(testWindow)()
	root := corpus(t)
	build(t, root)
	in := map[string]any{"pattern": "needle_rare", "output_mode": "content"}
	want := grep(t, root, nil, in)
	const gib = 1 << 30
	forged := map[string]struct {
		size   int64
		header []byte
	}{
		// The lengths add up to the file's size, the counts say nothing
		// of so long a table.
		"a table of 32 GiB": {32 * gib, searchindex.ForgeHeader(1000, 0, 0, 32*gib-64, 0)},
		// Counts and lengths agree and stay within what a build writes;
		// the body is a hole.
		"postings in a hole": {64 + (8 + 52<<20 + 400<<20) + (4*gib - 1),
			searchindex.ForgeHeader(1<<20, 0, 400<<20, 8+52<<20+400<<20, 4*gib-1)},
	}
	for name, f := range forged {
		t.Run(name, func(t *testing.T) {
			fd, err := os.OpenFile(indexFile(root), os.O_WRONLY|os.O_TRUNC, 0)
			if err != nil {
				t.Fatal(err)
			}
			_, err = fd.Write(f.header)
			if err == nil {
				err = fd.Truncate(f.size)
			}
			if cerr := fd.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				t.Fatal(err)
			}
			before := peakRSS(t)
			c := &counting{idx: searchindex.Open(root)}
			if got := grep(t, root, c, in); got != want {
				t.Fatalf("with the forged index:\n%s\nscanning:\n%s", got, want)
			}
			st := c.idx.Status()
			if !st.Exists || st.Problem == "" || c.skipped.Load() != 0 {
				t.Errorf("the forged index was used: %+v, %d files skipped", st, c.skipped.Load())
			}
			if grew := peakRSS(t) - before; grew > 64<<20 {
				t.Errorf("refusing the forged index took %d MiB of memory: its body was read", grew>>20)
			}
			if _, ok := c.idx.List(root, "needle_rare", nil); ok {
				t.Error("List used the forged index")
			}
			t.Logf("refused: %s", st.Problem)
		})
	}
}

// peakRSS is the process's peak resident memory, in bytes.
func peakRSS(t *testing.T) int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return ru.Maxrss << 10
}
