package files

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/indusagi/induscode/tool"
)

// maxReadHeap is the acceptance bound for reading deep into a huge file.
const maxReadHeap = 64 << 20

// hugeFile writes a 1 GiB file of 16-byte lines: line n (1-based) holds
// (n-1) mod 65536 as 15 digits. One 8 MiB block written 128 times keeps
// the setup to seconds.
func hugeFile(t testing.TB) (path string, lines int) {
	t.Helper()
	const blockLines = 1 << 16
	var block strings.Builder
	for i := range blockLines {
		fmt.Fprintf(&block, "%015d\n", i)
	}
	path = filepath.Join(t.TempDir(), "huge.txt")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	b := []byte(strings.Repeat(block.String(), 8)) // 8 MiB a write: few system calls
	for range 1024 / 8 {
		if _, err := f.Write(b); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path, 1024 * blockLines
}

// Reading lines 1,000,000-1,002,000 of a 1 GiB file streams it: the heap
// never holds more than a buffer and the output, and the result is exact.
// Not parallel: it measures the process heap.
func TestReadHugeFileMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 1 GiB file; skipped with -short")
	}
	start := time.Now()
	path, lines := hugeFile(t)
	t.Logf("wrote %s in %v", path, time.Since(start))

	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	peak := before.HeapAlloc
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		var m runtime.MemStats
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				runtime.ReadMemStats(&m)
				peak = max(peak, m.HeapAlloc)
			}
		}
	})
	start = time.Now()
	env := tool.NewEnv(filepath.Dir(path))
	r := ReadTool().Run(context.Background(), []byte(`{"path":"huge.txt","offset":1000000,"limit":2001}`), env)
	elapsed := time.Since(start)
	close(stop)
	wg.Wait()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	peak = max(peak, after.HeapAlloc)
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("read took %v; peak heap %d KB; allocated %d KB in total", elapsed, peak>>10, allocated>>10)

	if peak > maxReadHeap {
		t.Errorf("peak heap %d MB, over %d MB", peak>>20, maxReadHeap>>20)
	}
	if allocated > maxReadHeap {
		t.Errorf("the read allocated %d MB in total, over %d MB: it is not streaming", allocated>>20, maxReadHeap>>20)
	}
	got := mustOK(t, r)
	first := fmt.Sprintf("%d\t%015d\n", 1000000, (1000000-1)%(1<<16))
	last := fmt.Sprintf("%d\t%015d\n", 1002000, (1002000-1)%(1<<16))
	notice := fmt.Sprintf("\n[Showing lines 1000000-1002000 of %d. Use offset=1002001 to continue.]", lines)
	if !strings.HasPrefix(got, first) || !strings.Contains(got, last) || !strings.HasSuffix(got, notice) {
		t.Errorf("unexpected output: %s", short(got))
	}
	if rec, ok := env.Reads.Lookup(path); !ok || rec.Size != int64(lines)*16 {
		t.Errorf("read state %+v does not record the whole file", rec)
	}
}
