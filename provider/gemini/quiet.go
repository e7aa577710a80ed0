package gemini

import (
	"io"
	"net/http"
	"sync"
)

// The SDK logs a stream's read error through the standard logger (to
// standard error, in the middle of whatever the program prints) before
// it hands it on. A stream's body is therefore read through quietBody,
// which ends the stream at a read error as at its end and keeps the
// error for Stream, which reports it: a stream that ended without its
// finish reason failed with that error.

// readFailureKey is the context key of the readFailure of one Stream.
type readFailureKey struct{}

// readFailure holds the read error of one call's stream.
type readFailure struct {
	mu  sync.Mutex
	err error
}

func (f *readFailure) set(err error) {
	f.mu.Lock()
	if f.err == nil {
		f.err = err
	}
	f.mu.Unlock()
}

func (f *readFailure) get() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.err
}

// quietTransport gives the body of a call made by Stream a quietBody.
type quietTransport struct{ base http.RoundTripper }

func (t quietTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	base := t.base
	if base == nil {
		base = http.DefaultTransport
	}
	resp, err := base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	if f, ok := req.Context().Value(readFailureKey{}).(*readFailure); ok {
		resp.Body = &quietBody{ReadCloser: resp.Body, fail: f}
	}
	return resp, nil
}

type quietBody struct {
	io.ReadCloser
	fail *readFailure
}

func (b *quietBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && err != io.EOF {
		b.fail.set(err)
		return n, io.EOF
	}
	return n, err
}
