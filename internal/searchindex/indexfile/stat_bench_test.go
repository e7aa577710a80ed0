//go:build linux

package indexfile

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/indusagi/induscode/internal/testtree"
)

// BenchmarkStamp is what a one-shot search pays per file of the table to
// prove it unchanged (one fstatat of its name in its open folder), beside
// the cheapest system call, for a machine whose system calls are dear.
//
//	go test -run '^$' -bench Stamp ./internal/searchindex/indexfile/
func BenchmarkStamp(b *testing.B) {
	root := b.TempDir()
	tree := map[string]string{}
	for d := range 20 {
		for f := range 50 {
			tree[fmt.Sprintf("d%02d/f%02d.go", d, f)] = "package p\n"
		}
	}
	testtree.Write(b, root, tree)
	rels := slices.Sorted(maps.Keys(tree)) // path order, as the file table's
	b.Run("stamper", func(b *testing.B) {
		st := NewStamper(root)
		defer st.Close()
		i := 0
		for b.Loop() {
			if _, ok, _ := st.File(rels[i%len(rels)]); !ok {
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
