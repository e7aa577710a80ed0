package output

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/indusagi/induscode/workspace"
)

// MaxSpillBytes bounds each file the engine writes output to (a bash
// command's full output, a background process's capture): `yes` writes
// half a gigabyte a second, and a two-minute command must not fill a
// disk. 64 MiB is far more than anyone reads back; past it the file keeps
// the first and the newest half, with a line saying what was cut.
const MaxSpillBytes = 64 << 20

// CappedFile is an output file of at most max bytes. The first half is
// written as it comes; after that the newest bytes go round a ring in the
// second half, which Close puts back in order behind a marker line.
type CappedFile struct {
	f    *os.File
	path string
	max  int64
	n    int64 // bytes offered in all
	err  error
}

var _ io.WriteCloser = (*CappedFile)(nil)

// NewCappedFile caps f, the file at path, at max bytes.
func NewCappedFile(f *os.File, path string, max int64) *CappedFile {
	return &CappedFile{f: f, path: path, max: max}
}

func (c *CappedFile) halves() (head, tail int64) { return c.max / 2, c.max - c.max/2 }

// Write never fails for the cap; it reports a failing disk.
func (c *CappedFile) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	head, tail := c.halves()
	written := len(p)
	for len(p) > 0 {
		var off int64
		k := len(p)
		if c.n < c.max {
			off = c.n // still filling the file in order
			k = int(min(int64(k), c.max-c.n))
		} else {
			pos := (c.n - head) % tail
			off = head + pos
			k = int(min(int64(k), tail-pos))
		}
		if _, err := c.f.WriteAt(p[:k], off); err != nil {
			c.err = err
			return written - len(p), err
		}
		c.n += int64(k)
		p = p[k:]
	}
	return written, nil
}

// CapOf returns the cap of w when it is a capped file, else 0.
func CapOf(w io.Writer) int64 {
	if c, ok := w.(*CappedFile); ok {
		return c.max
	}
	return 0
}

// CapNote says what a file capped at max keeps of total bytes, or "" when
// nothing was cut.
func CapNote(path string, max, total int64) string {
	if max <= 0 || total <= max {
		return ""
	}
	return fmt.Sprintf("%s keeps only the first %s and the last %s of the %d bytes (output files are capped at %s)",
		path, mib(max/2), mib(max-max/2), total, mib(max))
}

func mib(n int64) string {
	if n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// Close puts a wrapped ring back in order (head, a marker line, the
// oldest kept tail byte onwards) by writing a new file and renaming it
// over the old, then closes.
func (c *CappedFile) Close() error {
	head, tail := c.halves()
	total := c.n
	if total <= c.max || c.err != nil {
		err := c.f.Close()
		if c.err != nil {
			return c.err
		}
		return err
	}
	defer c.f.Close()
	start := head + (c.n-head)%tail // the oldest byte of the ring
	dir := filepath.Dir(c.path)
	tmp, err := workspace.CreateTemp(dir)
	if err != nil {
		return err
	}
	defer workspace.Remove(tmp.Name()) // a no-op once renamed
	marker := fmt.Sprintf("\n[... %d bytes omitted: this file keeps the first %s and the last %s of %d bytes ...]\n", total-head-tail, mib(head), mib(tail), total)
	parts := []io.Reader{
		io.NewSectionReader(c.f, 0, head),
		strings.NewReader(marker),
		io.NewSectionReader(c.f, start, head+tail-start),
		io.NewSectionReader(c.f, head, start-head),
	}
	if _, err := io.Copy(tmp, io.MultiReader(parts...)); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return workspace.Rename(tmp.Name(), c.path)
}
