package checkpoint

import (
	"bytes"
	"fmt"

	"github.com/indusagi/induscode/internal/linediff"
)

// diffContext is the number of unchanged lines shown around each change,
// the usual diff -u default.
const diffContext = 3

// binarySniff is how much of a file is checked for NUL bytes to call it
// binary, as git does.
const binarySniff = 8000

// Unified returns a unified diff from a to b with the given file names
// ("/dev/null" for a side that does not exist), or "" when they are equal.
// Binary contents get a one-line notice instead of hunks. Line ends are
// kept as they are, so patch can apply the diff.
func Unified(fromName, toName string, a, b []byte) string {
	if bytes.Equal(a, b) {
		return ""
	}
	if isBinary(a) || isBinary(b) {
		return fmt.Sprintf("Binary files %s and %s differ\n", fromName, toName)
	}
	al, bl := linediff.Lines(string(a)), linediff.Lines(string(b))
	d, _ := linediff.Unified(fromName, toName, al, bl, linediff.Diff(al, bl), linediff.Options{Context: diffContext})
	return d
}

func isBinary(b []byte) bool { return bytes.IndexByte(b[:min(len(b), binarySniff)], 0) >= 0 }
