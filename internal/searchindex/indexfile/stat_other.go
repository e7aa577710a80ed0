//go:build !linux

package indexfile

import (
	"io/fs"
	"os"

	"github.com/indusagi/induscode/internal/walk"
)

// Elsewhere the index is not used: without change times and inodes a
// stamp cannot prove a file unchanged.

func FileStamp(*os.File) (Stamp, bool) { return Stamp{}, false }

func PathStamp(string) (Stamp, bool) { return Stamp{}, false }

const Supported = false

// MapFile reads the first size bytes of f: the index is not mapped where
// it is not used.
func MapFile(f *os.File, size int) (mem []byte, release func(), err error) {
	mem = make([]byte, size)
	if _, err := f.ReadAt(mem, 0); err != nil {
		return nil, nil, err
	}
	return mem, func() {}, nil
}

func Sparse(*os.File, int64) bool { return false }

func StatStamp(fs.FileInfo) (Stamp, bool) { return Stamp{}, false }

func LstatAny(string) (Stamp, bool, bool) { return Stamp{}, false, false }

type Stamper struct{ Files, Links int64 }

func NewStamper(string) *Stamper { return &Stamper{} }

func (*Stamper) Close() {}

func (*Stamper) File(string) (Stamp, bool, bool) { return Stamp{}, false, false }

func (*Stamper) Any(string) (Stamp, bool, bool) { return Stamp{}, false, false }

func (*Stamper) Entries(string) ([]fs.DirEntry, error) { return nil, fs.ErrInvalid }

func ReadWalked(f walk.File, _ *[]byte) ([]byte, Stamp, bool) {
	f.Release()
	return nil, Stamp{}, false
}
