package arena

import "golang.org/x/sys/unix"

// mapRegion maps n bytes of anonymous memory, in huge pages if asked and
// the system lets a mapping ask for them; it falls back to the heap.
func mapRegion(n int, huge bool) []byte {
	b, err := unix.Mmap(-1, 0, n, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return make([]byte, n)
	}
	if huge {
		_ = unix.Madvise(b, unix.MADV_HUGEPAGE) // only a hint
	}
	return b
}

func unmapRegion(b []byte) {
	_ = unix.Munmap(b) // a region of the heap is refused, and collected
}
