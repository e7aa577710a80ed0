//go:build !unix

package search

import (
	"errors"
	"io"
	"os"

	"github.com/indusagi/induscode/internal/walk"
)

// rawFile is a file opened for one sequential read.
type rawFile struct{ f *os.File }

func openRead(wf walk.File) (rawFile, error) {
	wf.Release()
	f, err := os.Open(wf.Path)
	if err != nil {
		return rawFile{}, err
	}
	return rawFile{f: f}, nil
}

// Read reads into p; 0 bytes and a nil error mean end of file.
func (f rawFile) Read(p []byte) (int, error) {
	n, err := f.f.Read(p)
	if n == 0 && errors.Is(err, io.EOF) {
		return 0, nil
	}
	return n, err
}

func (f rawFile) Close() error { return f.f.Close() }

// size is the file's size now, or -1 when it cannot be told.
func (f rawFile) size() int64 {
	fi, err := f.f.Stat()
	if err != nil {
		return -1
	}
	return fi.Size()
}
