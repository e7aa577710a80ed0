// Package jsonline reads newline-delimited JSON-RPC, one message a line,
// as MCP's stdio transport and the process addons' protocol write it: the
// one line reader under internal/stdioconn, the bridge's filter of a stdio
// server's stdout and the process addons' connection. It bounds a line's
// length without holding an over-long line (the line is skipped, with the
// id of a response kept so its call can be failed), skips blank lines and
// leaves the decoding, and what to do with a line that is not a message,
// to its caller, which keeps reading after a bad line.
package jsonline

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Reader reads lines from an io.Reader. It is not safe for concurrent use.
type Reader struct {
	r     *bufio.Reader
	max   int
	long  []byte // a line longer than the buffer, being gathered
	ended error  // what ended the input, once it has ended
}

// NewReader returns a Reader of r whose lines may be up to max bytes long.
func NewReader(r io.Reader, max int) *Reader {
	return &Reader{r: bufio.NewReaderSize(r, 64<<10), max: max}
}

// TooLongError is a line over the limit, which was skipped whole.
type TooLongError struct {
	Size int // the line's length in bytes, with its newline
	Max  int // the limit
	// ResponseID is the id of the line when it is a response (an id and
	// no method), as its JSON, else nil.
	ResponseID json.RawMessage
}

func (e *TooLongError) Error() string {
	return fmt.Sprintf("a line of %d bytes is over the %d-byte limit on one message; it was dropped", e.Size, e.Max)
}

// Next returns the next line that is not blank, without the white space
// around it; it is valid until the next call. A line over the limit is
// skipped and reported as a *TooLongError, and the next call reads on
// after it. At the end of the input Next returns the read's error (io.EOF),
// after a last line without a newline.
func (r *Reader) Next() ([]byte, error) {
	for {
		if r.ended != nil {
			return nil, r.ended
		}
		chunk, err := r.r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			if len(r.long)+len(chunk) <= r.max {
				r.long = append(r.long, chunk...)
				continue
			}
			return nil, r.skip(chunk)
		}
		if err != nil {
			r.ended = err
		}
		line := chunk
		if len(r.long) > 0 {
			line = append(r.long, chunk...)
			r.long = nil
		}
		if len(line) > r.max {
			var sc frameScanner
			sc.feed(line)
			return nil, &TooLongError{Size: len(line), Max: r.max, ResponseID: sc.responseID()}
		}
		if text := bytes.TrimSpace(line); len(text) > 0 {
			return text, nil
		}
	}
}

// skip reads the rest of an over-long line, of which r.long and chunk
// have been read, scanning it for a response's id without keeping it.
func (r *Reader) skip(chunk []byte) error {
	var sc frameScanner
	sc.feed(r.long)
	sc.feed(chunk)
	size := len(r.long) + len(chunk)
	r.long = nil // do not keep a line-sized buffer for the next line
	for {
		chunk, err := r.r.ReadSlice('\n')
		sc.feed(chunk)
		size += len(chunk)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil {
			r.ended = err
		}
		return &TooLongError{Size: size, Max: r.max, ResponseID: sc.responseID()}
	}
}
