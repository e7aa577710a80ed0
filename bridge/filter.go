package bridge

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"sync"
	"sync/atomic"
)

// maxFrame bounds one JSON-RPC line from a stdio server, the same limit the
// SDK puts on a frame (mcp.DefaultMaxLineLength): a longer line is dropped
// and logged instead of buffered without end.
const maxFrame = 16 << 20

// lineFilter passes on only the stdout lines of a stdio server that are JSON
// objects or arrays. The SDK ends a session at the first line it cannot
// decode, and servers do print banners, warnings and debug output to stdout;
// such lines go to the server's log instead. It reads synchronously in the
// SDK's reader goroutine, so it adds no goroutine or copy hop per message.
type lineFilter struct {
	src     io.ReadCloser
	r       *bufio.Reader
	log     *serverLog
	pending []byte
	line    []byte
	dropped atomic.Int64
	eof     chan struct{} // closed once Read has returned an error
	eofOnce sync.Once
}

func newLineFilter(src io.ReadCloser, log *serverLog) *lineFilter {
	return &lineFilter{src: src, r: bufio.NewReaderSize(src, 64<<10), log: log, eof: make(chan struct{})}
}

func (f *lineFilter) Read(p []byte) (int, error) {
	for len(f.pending) == 0 {
		line, err := f.next()
		if line != nil {
			f.pending = line
		}
		if err != nil && len(f.pending) == 0 {
			f.eofOnce.Do(func() { close(f.eof) })
			return 0, err
		}
		if err != nil {
			break
		}
	}
	n := copy(p, f.pending)
	f.pending = f.pending[n:]
	return n, nil
}

// next returns the next accepted line with its newline, or nil for a line
// that was dropped or blank.
func (f *lineFilter) next() ([]byte, error) {
	f.line = f.line[:0]
	oversize := false
	for {
		chunk, err := f.r.ReadSlice('\n')
		if !oversize {
			if len(f.line)+len(chunk) > maxFrame {
				oversize = true
				f.line = f.line[:0]
			} else {
				f.line = append(f.line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if oversize {
			f.dropped.Add(1)
			f.log.printf("dropped a stdout line over the %d-byte frame limit", maxFrame)
			return nil, err
		}
		return f.accept(f.line), err
	}
}

func (f *lineFilter) accept(line []byte) []byte {
	text := bytes.TrimSpace(line)
	if len(text) == 0 {
		return nil
	}
	if (text[0] == '{' || text[0] == '[') && json.Valid(text) {
		out := make([]byte, len(text)+1)
		copy(out, text)
		out[len(text)] = '\n'
		return out
	}
	f.dropped.Add(1)
	f.log.line("stdout", "(not JSON-RPC, dropped) "+string(text))
	return nil
}

// Close closes the underlying stdout pipe, which ends a pending Read.
func (f *lineFilter) Close() error { return f.src.Close() }
