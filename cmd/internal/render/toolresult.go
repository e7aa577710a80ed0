package render

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/indusagi/induscode/tool"
)

// NewTextStream returns the stream of a call's text to w.
func NewTextStream(w io.Writer) *TextStream { return &TextStream{w: w} }

// TextStream is the writer a call streams its text to: stdout, until the
// call has returned. A tool still running after an interrupted call
// cannot write behind the final message.
type TextStream struct {
	mu     sync.Mutex
	w      io.Writer
	wrote  bool
	closed bool
}

func (s *TextStream) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return 0, ErrStreamClosed
	}
	if len(p) > 0 {
		s.wrote = true
	}
	return s.w.Write(p)
}

// Close ends the stream and reports whether anything was written.
func (s *TextStream) Close() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	return s.wrote
}

// ErrStreamClosed is a write to a stream whose call has ended.
var ErrStreamClosed = errors.New("the call has ended; its output is closed")

// IsEmptyText reports whether a result is one empty text block.
func IsEmptyText(res tool.Result) bool {
	return len(res.Blocks) == 1 && res.Blocks[0].Kind == tool.KindText && res.Blocks[0].Text == ""
}

// ToolResult prints a tool's result for a person: text as is, JSON indented.
func ToolResult(w io.Writer, res tool.Result) {
	for i, b := range res.Blocks {
		if i > 0 {
			fmt.Fprintln(w)
		}
		if b.Kind == tool.KindJSON {
			var buf bytes.Buffer
			if json.Indent(&buf, b.JSON, "", "  ") == nil {
				fmt.Fprintln(w, buf.String())
				continue
			}
		}
		s := tool.Result{Blocks: []tool.Block{b}}.PlainText()
		fmt.Fprint(w, s)
		if !strings.HasSuffix(s, "\n") {
			fmt.Fprintln(w)
		}
	}
}
