package arena

import (
	"sync"
	"testing"
)

// TestBuffersDoNotOverlap: buffers handed out at once, from several
// goroutines and across regions, never share a byte, and Reset hands the
// same memory out again.
func TestBuffersDoNotOverlap(t *testing.T) {
	var a Arena
	defer a.Free()
	const workers, each = 4, 40
	bufs := make([][]byte, workers*each)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				n := 1 + (i*7919)%(300<<10) // up to 300 KiB: several regions
				b := a.Bytes(n)
				if len(b) != n || cap(b) != n {
					t.Errorf("Bytes(%d) gave len %d cap %d", n, len(b), cap(b))
				}
				for j := range b {
					b[j] = byte(w*each + i)
				}
				bufs[w*each+i] = b
			}
		})
	}
	wg.Wait()
	for k, b := range bufs {
		for _, c := range b {
			if c != byte(k) {
				t.Fatalf("buffer %d was written by another: found %d", k, c)
			}
		}
	}
	regions := len(a.regions)
	a.Reset()
	first := &a.Bytes(1)[0]
	a.Reset()
	if again := &a.Bytes(1)[0]; again != first || len(a.regions) != regions {
		t.Error("Reset did not take the memory back")
	}
	if u := a.Uint64s(1000); len(u) != 1000 {
		t.Errorf("Uint64s(1000) has %d", len(u))
	}
}
