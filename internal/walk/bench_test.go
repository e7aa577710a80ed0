package walk

import (
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"
)

// The benchmarks walk GOROOT/src (about 10,000 files): the parallel walk
// against the ordered one, which lists from one goroutine.
//
//	go test -run '^$' -bench . -benchtime 10x ./internal/walk

func BenchmarkWalk(b *testing.B) {
	root := filepath.Join(runtime.GOROOT(), "src")
	for b.Loop() {
		var n atomic.Int64
		var stats Stats
		Walk(b.Context(), Config{Root: root, Visit: func(int, File) { n.Add(1) }}, &stats)
		b.ReportMetric(float64(n.Load()), "files")
	}
}

func BenchmarkSorted(b *testing.B) {
	root := filepath.Join(runtime.GOROOT(), "src")
	for b.Loop() {
		n := 0
		var stats Stats
		for range Sorted(b.Context(), Config{Root: root}, &stats) {
			n++
		}
		b.ReportMetric(float64(n), "files")
	}
}
