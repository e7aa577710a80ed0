//go:build linux

package searchindex

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// BenchmarkStamp is what a one-shot search pays per file of the table to
// prove it unchanged (one fstatat of its name in its open folder), beside
// the cheapest system call, for a machine whose system calls are dear.
//
//	go test -run '^$' -bench Stamp ./internal/searchindex/
func BenchmarkStamp(b *testing.B) {
	root := b.TempDir()
	var rels []string
	for d := range 20 {
		for f := range 50 {
			rel := fmt.Sprintf("d%02d/f%02d.go", d, f)
			p := filepath.Join(root, rel)
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := os.WriteFile(p, []byte("package p\n"), 0o644); err != nil {
				b.Fatal(err)
			}
			rels = append(rels, rel)
		}
	}
	b.Run("stamper", func(b *testing.B) {
		st := newStamper(root)
		defer st.close()
		i := 0
		for b.Loop() {
			if _, ok := st.file(rels[i%len(rels)]); !ok {
				b.Fatal("no stamp")
			}
			i++
		}
	})
	b.Run("getpid", func(b *testing.B) {
		for b.Loop() {
			unix.Getpid()
		}
	})
}
