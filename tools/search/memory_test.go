package search

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"time"
)

// hugeFileSize is the size of the file the memory test searches: large
// enough that holding it, or any fraction that grows with it, would show.
const hugeFileSize = 1 << 30

// peakHeapLimit is the bound on the heap of grep over a huge file.
const peakHeapLimit = 64 << 20

// writeHugeFile writes hugeFileSize bytes of 100-byte lines: one line in
// each MiB holds "PERIODIC", and the file's last line ends "FINALNEEDLE".
// It writes to /dev/shm when that is a memory file system with room, so
// the test measures the search, not the disk.
func writeHugeFile(t *testing.T) string {
	t.Helper()
	const block = 1 << 20
	line := strings.Repeat("lorem ipsum dolor sit amet ", 4)[:99] + "\n"
	buf := bytes.Repeat([]byte(line), block/len(line))
	copy(buf[len(line)*7:], "PERIODIC")
	buf = append(buf, bytes.Repeat([]byte("x"), block-len(buf)-1)...)
	buf = append(buf, '\n')
	path := filepath.Join(hugeDir(t, 2*hugeFileSize), "huge.txt")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	for range hugeFileSize/block - 1 {
		if _, err := f.Write(buf); err != nil {
			t.Fatal(err)
		}
	}
	last := bytes.Clone(buf)
	copy(last[len(last)-len("FINALNEEDLE\n"):], "FINALNEEDLE\n")
	if _, err := f.Write(last); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// peakHeap runs fn while sampling the live heap every millisecond and
// returns the largest sample.
func peakHeap(fn func()) uint64 {
	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var peak uint64
	read := func() {
		metrics.Read(sample)
		peak = max(peak, sample[0].Value.Uint64())
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				read()
			}
		}
	})
	fn()
	close(stop)
	wg.Wait()
	read()
	return peak
}

// TestGrepHugeFileMemory is deliberately not parallel: it measures the
// heap, which other tests would share.
func TestGrepHugeFileMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 1 GiB file")
	}
	path := writeHugeFile(t)
	dir := filepath.Dir(path)
	g := GrepTool(Options{})
	for _, tt := range []struct{ input, want string }{
		{`{"pattern":"PERIODIC","output_mode":"count"}`, fmt.Sprintf("Found %d matching lines in 1 file", hugeFileSize>>20)},
		// Each MiB block is 10485 lines of 100 bytes and one padding line.
		{`{"pattern":"FINAL[N]EEDLE","output_mode":"content"}`, fmt.Sprintf("huge.txt:%d:xxx", (hugeFileSize>>20)*(1<<20/100+1))},
	} {
		var out string
		start := time.Now()
		peak := peakHeap(func() { out = run(t, g, dir, tt.input).PlainText() })
		t.Logf("%s: %v, peak heap %.1f MB", tt.input, time.Since(start).Round(time.Millisecond), float64(peak)/(1<<20))
		if !strings.Contains(out, tt.want) {
			t.Errorf("%s: output %q lacks %q", tt.input, out, tt.want)
		}
		if peak >= peakHeapLimit {
			t.Errorf("%s: peak heap %d bytes, want under %d", tt.input, peak, peakHeapLimit)
		}
	}
}
