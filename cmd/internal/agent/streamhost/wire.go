package streamhost

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
)

// maxLine bounds one line of standard input. A user message may carry
// images as base64 (the Messages API takes up to 32 MB a request), so
// the bound is well above that; a longer line ends the input with an
// error rather than growing without limit.
const maxLine = 64 << 20

// inbound is one line of standard input: a user message, a control
// request of the app, the app's answer to one of ours, or the app's
// cancellation of one of its requests.
type inbound struct {
	Type      string          `json:"type"`
	RequestID string          `json:"request_id"`
	Request   json.RawMessage `json:"request"`
	Response  *ctrlResponse   `json:"response"`
	Message   json.RawMessage `json:"message"`
	UUID      string          `json:"uuid"`
	// ShouldQuery false adds the message without a model turn.
	ShouldQuery *bool `json:"shouldQuery"`
}

// ctrlResponse is the app's answer to a control request of indusr's.
type ctrlResponse struct {
	Subtype   string          `json:"subtype"`
	RequestID string          `json:"request_id"`
	Response  json.RawMessage `json:"response"`
	Error     string          `json:"error"`
}

// errInputClosed is the error of a request to the app made after, or
// pending when, its input ended: no answer can come.
var errInputClosed = errors.New("the app closed indusr's standard input, so it cannot answer")

// wire is both directions of the protocol: it writes whole lines to
// standard output (from the run's goroutine and the control goroutine
// alike) and matches the app's answers to indusr's requests.
type wire struct {
	mu  sync.Mutex // guards out and werr: one line at a time
	out io.Writer
	// werr is the first write error; later writes are dropped.
	werr error

	pmu     sync.Mutex // guards pending and closed
	pending map[string]chan ctrlResponse
	closed  bool
}

func newWire(out io.Writer) *wire {
	return &wire{out: out, pending: map[string]chan ctrlResponse{}}
}

// send writes v as one line.
func (w *wire) send(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return w.writeLine(append(b, '\n'))
}

// writeLine writes one whole line (ending in '\n') in a single write.
func (w *wire) writeLine(line []byte) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.werr != nil {
		return w.werr
	}
	if _, err := w.out.Write(line); err != nil {
		w.werr = fmt.Errorf("writing to standard output: %w", err)
	}
	return w.werr
}

// failed returns the first write error.
func (w *wire) failed() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.werr
}

// newID returns a request id: a random UUID, as Claude Code's are.
func newID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// request sends the app a control request and waits for its answer, the
// end of ctx (the app is then told, with control_cancel_request) or the
// end of the input.
func (w *wire) request(ctx context.Context, req map[string]any) (json.RawMessage, error) {
	id := newID()
	ch := make(chan ctrlResponse, 1)
	w.pmu.Lock()
	if w.closed {
		w.pmu.Unlock()
		return nil, errInputClosed
	}
	w.pending[id] = ch
	w.pmu.Unlock()
	defer func() {
		w.pmu.Lock()
		delete(w.pending, id)
		w.pmu.Unlock()
	}()
	if err := w.send(map[string]any{"type": "control_request", "request_id": id, "request": req}); err != nil {
		return nil, err
	}
	select {
	case r, ok := <-ch:
		if !ok {
			return nil, errInputClosed
		}
		if r.Subtype == "error" {
			return nil, fmt.Errorf("the app answered %s with an error: %s", req["subtype"], r.Error)
		}
		return r.Response, nil
	case <-ctx.Done():
		w.send(map[string]any{"type": "control_cancel_request", "request_id": id})
		return nil, context.Cause(ctx)
	}
}

// deliver hands the app's answer to the request waiting for it; an
// answer to no pending request (a late one, after a cancellation) is
// dropped.
func (w *wire) deliver(r ctrlResponse) {
	w.pmu.Lock()
	ch := w.pending[r.RequestID]
	delete(w.pending, r.RequestID)
	w.pmu.Unlock()
	if ch != nil {
		ch <- r
	}
}

// inputEnded fails every pending request and every later one.
func (w *wire) inputEnded() {
	w.pmu.Lock()
	defer w.pmu.Unlock()
	w.closed = true
	for id, ch := range w.pending {
		close(ch)
		delete(w.pending, id)
	}
}

// answer writes indusr's answer to the app's control request id: resp on
// success, else err's text.
func (w *wire) answer(id string, resp any, err error) {
	if err != nil {
		w.send(map[string]any{"type": "control_response", "response": map[string]any{
			"subtype": "error", "request_id": id, "error": err.Error()}})
		return
	}
	if resp == nil {
		resp = map[string]any{}
	}
	w.send(map[string]any{"type": "control_response", "response": map[string]any{
		"subtype": "success", "request_id": id, "response": resp}})
}

// read reads standard input line by line until it ends: the app's
// answers go straight to the requests waiting for them (so a run blocked
// on one is never stuck behind the queue), everything else to in, which
// is closed at the end. A line that is not JSON is reported on stderr
// and passed over, as the SDK passes over ours.
func (w *wire) read(r io.Reader, in chan<- inbound, stderr io.Writer) {
	defer close(in)
	defer w.inputEnded()
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := readLine(br)
		if len(bytes.TrimSpace(line)) > 0 {
			var m inbound
			if jerr := json.Unmarshal(line, &m); jerr != nil {
				fmt.Fprintf(stderr, "indusr: a line of standard input is not JSON (%v); it was passed over\n", jerr)
			} else if m.Type == "control_response" && m.Response != nil {
				w.deliver(*m.Response)
			} else {
				in <- m
			}
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				fmt.Fprintf(stderr, "indusr: reading standard input: %v\n", err)
			}
			return
		}
	}
}

// readLine reads one line of at most maxLine bytes.
func readLine(br *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > maxLine {
			return nil, fmt.Errorf("a line is longer than %d MiB", maxLine>>20)
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, err
		}
	}
}

// lineWriter is the printer's way to standard output: it passes on whole
// lines only, so they never mix with the control lines written meanwhile,
// and lets the host add what only it knows to a line (see patch).
type lineWriter struct {
	w     *wire
	buf   []byte
	patch func(line []byte) []byte
}

func (l *lineWriter) Write(p []byte) (int, error) {
	l.buf = append(l.buf, p...)
	for {
		i := bytes.IndexByte(l.buf, '\n')
		if i < 0 {
			break
		}
		line := l.buf[:i+1]
		if l.patch != nil {
			line = l.patch(line)
		}
		if err := l.w.writeLine(line); err != nil {
			return 0, err
		}
		l.buf = l.buf[i+1:]
	}
	return len(p), nil
}
