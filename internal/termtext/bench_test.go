package termtext

import (
	"strings"
	"testing"
)

// BenchmarkSince is the cost of one look at a full 120x40 screen: what a
// wait pays each time output arrives.
func BenchmarkSince(b *testing.B) {
	s := New(120, 40, 2000, nil)
	defer s.Close()
	line := strings.Repeat("x", 100) + "\r\n"
	s.Write([]byte(strings.Repeat(line, 60)))
	_, m := s.Since(Mark{})
	b.ResetTimer()
	for b.Loop() {
		s.Since(m)
	}
}

// BenchmarkWrite is the cost of feeding output through the emulator.
func BenchmarkWrite(b *testing.B) {
	s := New(120, 40, 2000, nil)
	defer s.Close()
	chunk := []byte(strings.Repeat(strings.Repeat("y", 79)+"\r\n", 400))
	b.SetBytes(int64(len(chunk)))
	for b.Loop() {
		s.Write(chunk)
	}
}
