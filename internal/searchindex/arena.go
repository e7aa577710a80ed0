package searchindex

import (
	"sync"
	"unsafe"
)

// arena holds a build's large buffers: the workers' pairs and runs, the
// runs kept for the merge, the merged lists. A build touches each of
// their pages once, and the first touch of a page is most of what such
// memory costs (a fault, and on a virtual machine the host backing it),
// so they come from regions mapped for the build, in huge pages where the
// system allows, and reused once the arena is reset; none of them holds a
// pointer. Every slice of an arena is dead once it is freed.
type arena struct {
	mu      sync.Mutex
	regions [][]byte // mapped, in the order used
	at      int      // the region allocations come from
	used    int      // bytes of regions[at] handed out
}

// Regions start small and double up to maxRegion, so that a small build
// maps little; from hugeRegion up they ask for huge pages, whose first
// touch costs as much as their 2 MiB, so that only a large build does.
const (
	minRegion  = 1 << 20
	maxRegion  = 32 << 20
	hugeRegion = 8 << 20
)

// bytes returns n bytes of the arena, of unspecified content.
func (a *arena) bytes(n int) []byte {
	n = (n + 63) &^ 63
	a.mu.Lock()
	defer a.mu.Unlock()
	for a.at < len(a.regions) && len(a.regions[a.at])-a.used < n {
		a.at, a.used = a.at+1, 0
	}
	if a.at == len(a.regions) {
		size := max(n, min(maxRegion, minRegion<<len(a.regions)))
		a.regions = append(a.regions, mapRegion(size, size >= hugeRegion))
	}
	b := a.regions[a.at][a.used : a.used+n : a.used+n]
	a.used += n
	return b
}

// uint64s returns n uint64s of the arena, of unspecified content.
func (a *arena) uint64s(n int) []uint64 {
	if n == 0 {
		return nil
	}
	b := a.bytes(8 * n)
	return unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(b))), n)
}

// reset takes back everything handed out, for use again.
func (a *arena) reset() {
	a.mu.Lock()
	a.at, a.used = 0, 0
	a.mu.Unlock()
}

// free unmaps the arena.
func (a *arena) free() {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, r := range a.regions {
		unmapRegion(r)
	}
	a.regions, a.at, a.used = nil, 0, 0
}
