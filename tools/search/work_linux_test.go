package search

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/indusagi/induscode/tool"
)

// TestGrepWorkPerFile guards the cost of searching one file with measures
// that do not depend on the machine's speed or load: read system calls and
// bytes read (the kernel's counters in /proc/self/io) and heap allocations
// per file, for each output mode, on a fixed tree. A change that reads a
// file twice, adds a read or a stat per file, or allocates per file what
// could be paid per batch fails here, where a timing would only drift.
//
// Not parallel: the counters are the whole process's, so this test runs
// while no other test of the package does.
func TestGrepWorkPerFile(t *testing.T) {
	const (
		dirs, perDir = 20, 25
		files        = dirs * perDir
		// A search reads each file once: one read that returns it whole
		// and one that finds its end, which a local filesystem spares
		// (shortReadEnds). Directories are listed with getdents, which
		// these counters leave out.
		maxReadsPerFile, maxReadsPerLocalFile = 2.1, 1.1
		// The few allocations a file costs: its path and the walk's
		// entry. The stream's own bookkeeping is per batch of files.
		maxAllocsPerFile = 5.0
	)
	body := strings.Repeat("an ordinary line of source text, nothing to see here\n", 60) +
		"the needle is on this line\n" + strings.Repeat("more text after the match, to read past\n", 30)
	dir := t.TempDir()
	for d := range dirs {
		for f := range perDir {
			p := filepath.Join(dir, fmt.Sprintf("pkg%02d", d), fmt.Sprintf("file%02d.go", f))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	env := tool.NewEnv(dir)
	g := GrepTool(Options{Workers: 2})
	maxReads := maxReadsPerFile
	if shortReadEnds(dir) {
		maxReads = maxReadsPerLocalFile
	}
	for _, mode := range []string{"content", "files_with_matches", "count"} {
		in := []byte(`{"pattern":"needle","output_mode":"` + mode + `","head_limit":0}`)
		ctx := tool.WithTextStream(t.Context(), &countingWriter{})
		search := func() {
			if res := g.Run(ctx, in, env); res.IsError {
				t.Fatalf("%s: %s", mode, res.PlainText())
			}
		}
		search() // warm: page cache, lazily built tables
		var m0, m1 runtime.MemStats
		io0 := procIO(t)
		runtime.ReadMemStats(&m0)
		search()
		runtime.ReadMemStats(&m1)
		io1 := procIO(t)
		reads := float64(io1["syscr"]-io0["syscr"]) / files
		read := float64(io1["rchar"]-io0["rchar"]) / files
		allocs := float64(m1.Mallocs-m0.Mallocs) / files
		t.Logf("%s: %.2f reads, %.0f bytes read (file: %d), %.2f allocations per file", mode, reads, read, len(body), allocs)
		if reads > maxReads {
			t.Errorf("%s: %.2f read calls per file, want at most %.1f", mode, reads, maxReads)
		}
		// A little over the file's size: /proc/self/io also counts what
		// the counters' own reads return.
		if limit := 1.05 * float64(len(body)); read > limit {
			t.Errorf("%s: %.0f bytes read per file of %d bytes, want at most %.0f", mode, read, len(body), limit)
		}
		if allocs > maxAllocsPerFile {
			t.Errorf("%s: %.2f allocations per file, want at most %.1f", mode, allocs, maxAllocsPerFile)
		}
	}
}

// procIO reads the process's I/O counters (syscr: read system calls,
// rchar: bytes they returned).
func procIO(t *testing.T) map[string]int64 {
	t.Helper()
	data, err := os.ReadFile("/proc/self/io")
	if err != nil {
		t.Fatalf("the guard needs /proc/self/io: %v", err)
	}
	out := map[string]int64{}
	for line := range bytes.Lines(data) {
		k, v, ok := strings.Cut(strings.TrimSpace(string(line)), ": ")
		if !ok {
			continue
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			t.Fatalf("/proc/self/io: %q: %v", line, err)
		}
		out[k] = n
	}
	return out
}

// Every search closes what it opened, whether it runs to the end, stops
// at a failed write, or is cancelled: the walk keeps directories open for
// the files still to be searched (walk.File), and each must be released.
// Not parallel: the descriptor table is the whole process's.
func TestGrepClosesWhatItOpens(t *testing.T) {
	root := streamTree(t)
	env := tool.NewEnv(root)
	fds := func() int {
		ents, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Fatal(err)
		}
		return len(ents)
	}
	before := fds()
	g := GrepTool(Options{Workers: 2})
	for _, mode := range []string{"content", "files_with_matches", "count"} {
		in := []byte(`{"pattern":"hit","output_mode":"` + mode + `","head_limit":0}`)
		if res := g.Run(tool.WithTextStream(t.Context(), &countingWriter{}), in, env); res.IsError {
			t.Fatalf("%s: %s", mode, res.PlainText())
		}
		if n := fds(); n != before {
			t.Errorf("%s search: %d descriptors open after it, %d before", mode, n, before)
		}
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		g.Run(tool.WithTextStream(ctx, &countingWriter{}), in, env)
		if n := fds(); n != before {
			t.Errorf("cancelled %s search: %d descriptors open after it, %d before", mode, n, before)
		}
	}
	g.Run(tool.WithTextStream(t.Context(), failingWriter{}), []byte(`{"pattern":"hit","output_mode":"content","head_limit":0}`), env)
	if n := fds(); n != before {
		t.Errorf("search stopped by a failed write: %d descriptors open after it, %d before", n, before)
	}
}
