package searchindex

import (
	"runtime/debug"
	"unsafe"

	"github.com/indusagi/induscode/internal/searchindex/indexfile"
)

// The index file is mapped (package indexfile). The deck never changes it in
// place: a build writes a new file and renames it over the old one, whose
// pages stay mapped for the snapshots still reading them. A process that
// cut the file short in place (cp over it, truncate) would make the next
// read of a lost page fault. Every reader of a mapping runs under
// survive, which turns such a fault into a refused index (grep scans)
// instead of a crash.

// survive is deferred by a reader of s's mapping as
//
//	defer x.survive(s, debug.SetPanicOnFault(true), onFault)
//
// so that a fault inside the mapping is recovered: s is refused, and
// onFault (if set) puts the reader's results right with the reason. It restores the
// goroutine's setting (was) and lets any other panic go on.
func (x *Index) survive(s *snapshot, was bool, onFault func(err error)) {
	debug.SetPanicOnFault(was)
	r := recover()
	if r == nil {
		return
	}
	if !s.maps(faultAddr(r)) {
		panic(r)
	}
	x.refuse(s, errCutShort)
	if onFault != nil {
		onFault(errCutShort)
	}
}

// errCutShort is why a snapshot whose file was cut short is refused.
var errCutShort = indexfile.Corrupt("the index file was cut short while it was read")

// maps reports whether addr is inside s's mapping.
func (s *snapshot) maps(addr uintptr) bool {
	if len(s.mem) == 0 {
		return false
	}
	start := uintptr(unsafe.Pointer(unsafe.SliceData(s.mem)))
	return addr >= start && addr < start+uintptr(len(s.mem))
}

// refuse stops using s, if it is still the current snapshot, for err.
func (x *Index) refuse(s *snapshot, err error) {
	x.mu.Lock()
	if x.snap == s {
		x.snap, x.bad = nil, err
	}
	x.mu.Unlock()
}

// faultAddr is the address of the memory fault r reports, or 0 when r
// is not a memory fault.
func faultAddr(r any) uintptr {
	if f, ok := r.(interface{ Addr() uintptr }); ok {
		return f.Addr()
	}
	return 0
}
