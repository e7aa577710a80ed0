//go:build !linux

package searchindex

import (
	"io/fs"
	"os"

	"github.com/indusagi/induscode/internal/walk"
)

// Elsewhere the index is not used: without change times and inodes a
// stamp cannot prove a file unchanged.

func fileStamp(*os.File) (stamp, bool) { return stamp{}, false }

func pathStamp(string) (stamp, bool) { return stamp{}, false }

const supported = false

// mapFile reads the first size bytes of f: the index is not mapped where
// it is not used.
func mapFile(f *os.File, size int) (mem []byte, release func(), err error) {
	mem = make([]byte, size)
	if _, err := f.ReadAt(mem, 0); err != nil {
		return nil, nil, err
	}
	return mem, func() {}, nil
}

func sparse(*os.File, int64) bool { return false }

func statStamp(fs.FileInfo) (stamp, bool) { return stamp{}, false }

func lstatAny(string) (stamp, bool, bool) { return stamp{}, false, false }

type stamper struct{ files, links int64 }

func newStamper(string) *stamper { return &stamper{} }

func (*stamper) close() {}

func (*stamper) file(string) (stamp, bool, bool) { return stamp{}, false, false }

func (*stamper) any(string) (stamp, bool, bool) { return stamp{}, false, false }

func (*stamper) entries(string) ([]fs.DirEntry, error) { return nil, fs.ErrInvalid }

func readWalked(f walk.File, _ *[]byte) ([]byte, stamp, bool) {
	f.Release()
	return nil, stamp{}, false
}
