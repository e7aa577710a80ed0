// Package arena hands out large, pointer-free, short-lived buffers from
// memory regions mapped outside the Go heap, in huge pages where the
// system allows. It serves the search index's build, whose buffers are
// touched once each: the first touch of a page is most of what such
// memory costs (a fault, and on a virtual machine the host backing it),
// and regions reused after Reset are touched once for the whole build.
// Nothing handed out may hold a pointer the garbage collector must see.
// It is a few dozen lines over x/sys/unix; the Go experiment of the same
// name is not for production.
package arena

import (
	"sync"
	"unsafe"
)

// Arena is a set of mapped regions, safe for concurrent use. The zero
// value is ready. Every slice of an arena is dead once it is reset or
// freed.
type Arena struct {
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

// Bytes returns n bytes of the arena (len and cap n, aligned to 64
// bytes), of unspecified content.
func (a *Arena) Bytes(n int) []byte {
	size := (n + 63) &^ 63
	a.mu.Lock()
	defer a.mu.Unlock()
	for a.at < len(a.regions) && len(a.regions[a.at])-a.used < size {
		a.at, a.used = a.at+1, 0
	}
	if a.at == len(a.regions) {
		r := max(size, min(maxRegion, minRegion<<len(a.regions)))
		a.regions = append(a.regions, mapRegion(r, r >= hugeRegion))
	}
	b := a.regions[a.at][a.used : a.used+n : a.used+n]
	a.used += size
	return b
}

// Uint64s returns n uint64s of the arena, of unspecified content.
func (a *Arena) Uint64s(n int) []uint64 {
	if n == 0 {
		return nil
	}
	b := a.Bytes(8 * n)
	return unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(b))), n)
}

// Reset takes back everything handed out, for use again.
func (a *Arena) Reset() {
	a.mu.Lock()
	a.at, a.used = 0, 0
	a.mu.Unlock()
}

// Free unmaps the arena.
func (a *Arena) Free() {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, r := range a.regions {
		unmapRegion(r)
	}
	a.regions, a.at, a.used = nil, 0, 0
}
