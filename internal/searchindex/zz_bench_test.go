package searchindex

import (
	"os"
	"syscall"
	"testing"
	"time"
)

func cpuNow() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func TestZZLoadList(t *testing.T) {
	root := os.Getenv("ZZ_ROOT")
	if root == "" {
		t.Skip("no ZZ_ROOT")
	}
	var lt, ls time.Duration
	for range 10 {
		t0 := cpuNow()
		x := Open(root)
		s := x.load()
		t1 := cpuNow()
		paths, ok := x.list(s, root, "ErrUnexpectedEOF", nil, listHooks{})
		t2 := cpuNow()
		lt += t1 - t0
		ls += t2 - t1
		_, _ = paths, ok
	}
	t.Logf("cpu per call: load %v list %v", lt/10, ls/10)
}
