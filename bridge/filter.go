package bridge

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"

	"github.com/indusagi/induscode/internal/childlog"
	"github.com/indusagi/induscode/internal/jsonline"
)

// maxFrame bounds one JSON-RPC line from a stdio server, the same limit the
// SDK puts on a frame (mcp.DefaultMaxLineLength): a longer line is dropped
// and logged instead of buffered without end.
const maxFrame = 16 << 20

// lineFilter passes on only the stdout lines of a stdio server that are
// JSON-RPC messages: an object with "jsonrpc", or an array of them (a
// batch). The SDK ends a session at the first line it cannot decode, and
// servers do print banners, warnings, debug output and structured (JSON)
// log lines to stdout; such lines go to the server's log instead. A
// response over the frame limit is replaced by an error response for its
// request, so the call fails at once and says why instead of waiting for
// its timeout. It reads synchronously in the SDK's reader goroutine, so it
// adds no goroutine or copy hop per message.
type lineFilter struct {
	src     io.ReadCloser
	lines   *jsonline.Reader
	log     *childlog.Log
	pending []byte
	dropped atomic.Int64
	eof     chan struct{} // closed once Read has returned an error
	eofOnce sync.Once
}

func newLineFilter(src io.ReadCloser, log *childlog.Log) *lineFilter {
	return &lineFilter{src: src, lines: jsonline.NewReader(src, maxFrame), log: log, eof: make(chan struct{})}
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
// that was dropped.
func (f *lineFilter) next() ([]byte, error) {
	text, err := f.lines.Next()
	var tooLong *jsonline.TooLongError
	switch {
	case errors.As(err, &tooLong):
		return f.tooLarge(tooLong), nil
	case err != nil:
		return nil, err
	}
	return f.accept(text), nil
}

// tooLarge drops a line over the frame limit. When it is a response, an
// error response for the same request takes its place, naming the size and
// the limit.
func (f *lineFilter) tooLarge(e *jsonline.TooLongError) []byte {
	f.dropped.Add(1)
	id, size := e.ResponseID, e.Size
	if id == nil {
		f.log.Printf("dropped a stdout line of %d bytes, over the %d-byte frame limit", size, maxFrame)
		return nil
	}
	f.log.Printf("dropped the response to request %s: %d bytes, over the %d-byte frame limit; the call fails", id, size, maxFrame)
	b, err := json.Marshal(map[string]any{
		"jsonrpc": "2.0",
		"id":      id,
		"error": map[string]any{
			"code":    codeFrameTooLarge,
			"message": fmt.Sprintf(frameTooLargePrefix+"%d bytes, over the %d-byte limit on one message (%d MiB)", size, maxFrame, maxFrame>>20),
		},
	})
	if err != nil {
		return nil
	}
	return append(b, '\n')
}

// codeFrameTooLarge is the JSON-RPC error code of the response that stands
// in for one over the frame limit; it is in the range JSON-RPC reserves for
// implementation errors.
const codeFrameTooLarge = -32099

// frameTooLargePrefix starts the message of that error response; with the
// code it tells the bridge's own stand-in from a server's error.
const frameTooLargePrefix = "the answer was "

func (f *lineFilter) accept(text []byte) []byte {
	if isJSONRPC(text) {
		out := make([]byte, len(text)+1)
		copy(out, text)
		out[len(text)] = '\n'
		return out
	}
	f.dropped.Add(1)
	f.log.Line("stdout", "(not JSON-RPC, dropped) "+string(text))
	return nil
}

// rpcVersion is the one member every JSON-RPC 2.0 message carries.
type rpcVersion struct {
	JSONRPC *string `json:"jsonrpc"`
}

// isJSONRPC reports whether text is a JSON-RPC message or a non-empty
// batch of them. JSON that is not (a log object, an array of numbers) is
// not: the SDK would end the session on it.
func isJSONRPC(text []byte) bool {
	switch text[0] {
	case '{':
		var m rpcVersion
		return json.Unmarshal(text, &m) == nil && m.JSONRPC != nil
	case '[':
		var batch []rpcVersion
		if json.Unmarshal(text, &batch) != nil || len(batch) == 0 {
			return false
		}
		for _, m := range batch {
			if m.JSONRPC == nil {
				return false
			}
		}
		return true
	}
	return false
}

// Close closes the underlying stdout pipe, which ends a pending Read.
func (f *lineFilter) Close() error { return f.src.Close() }
