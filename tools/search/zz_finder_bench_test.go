package search

import (
	"bytes"
	"os"
	"testing"
)

func loadBig(b *testing.B) []byte {
	d, err := os.ReadFile("/tmp/sb/big.go")
	if err != nil {
		b.Skip()
	}
	return d
}

var lits = []string{"return", "ErrUnexpectedEOF", "func", "context.Context", "NewUnstartedServer", "(ctx context.Context"}

func BenchmarkLit(b *testing.B) {
	data := loadBig(b)
	for _, l := range lits {
		b.Run("rare/"+l, func(b *testing.B) {
			f := newFinder(lit{s: l})
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				f.reset()
				for p := 0; ; {
					q, _ := f.find(data, p)
					if q < 0 {
						break
					}
					p = q + 1
				}
			}
		})
		b.Run("index/"+l, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				for p := 0; ; {
					i := bytes.Index(data[p:], []byte(l))
					if i < 0 {
						break
					}
					p += i + 1
				}
			}
		})
	}
}
