package provider

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"
)

// DefaultIdleTimeout is how long a model's answer may send nothing before
// the call is given up as stalled. Anthropic's streams send a ping every
// few seconds while the model thinks; a reasoning model of another API
// may say nothing for minutes before its first token, which the bound
// leaves room for.
const DefaultIdleTimeout = 5 * time.Minute

// ErrStalled is a call whose answer sent nothing for the idle timeout:
// the server hangs mid-stream, or before its headers. It is tried again
// as a dropped connection is, when nothing was shown yet.
var ErrStalled = errors.New("the model's answer stalled")

// StallError is ErrStalled with the bound that ran out.
type StallError struct{ After time.Duration }

func (e *StallError) Error() string {
	return fmt.Sprintf("%v: nothing came for %v", ErrStalled, e.After)
}

func (e *StallError) Is(target error) bool { return target == ErrStalled }

// IdleTimeout returns a transport that ends a request when its answer
// sends nothing for d: no headers, or no body bytes between two reads
// that return some. The clock restarts on every byte that arrives, so a
// long answer that keeps streaming is never cut. base nil means
// http.DefaultTransport; d <= 0 returns base unchanged.
func IdleTimeout(base http.RoundTripper, d time.Duration) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	if d <= 0 {
		return base
	}
	return &idleTransport{base: base, idle: d}
}

type idleTransport struct {
	base http.RoundTripper
	idle time.Duration
}

func (t *idleTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithCancelCause(req.Context())
	stall := &StallError{After: t.idle}
	timer := time.AfterFunc(t.idle, func() { cancel(stall) })
	resp, err := t.base.RoundTrip(req.WithContext(ctx))
	if err != nil {
		timer.Stop()
		if context.Cause(ctx) == stall {
			err = stall
		}
		cancel(nil)
		return nil, err
	}
	resp.Body = &idleBody{ReadCloser: resp.Body, ctx: ctx, cancel: cancel, timer: timer, idle: t.idle, stall: stall}
	timer.Reset(t.idle)
	return resp, nil
}

// idleBody restarts the stall clock on every read that returns bytes and
// turns the cancellation it causes into the StallError.
type idleBody struct {
	io.ReadCloser
	ctx    context.Context
	cancel context.CancelCauseFunc
	timer  *time.Timer
	idle   time.Duration
	stall  *StallError
	once   sync.Once
}

func (b *idleBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		b.timer.Reset(b.idle)
	}
	if err != nil && err != io.EOF && context.Cause(b.ctx) == b.stall {
		return n, b.stall
	}
	return n, err
}

func (b *idleBody) Close() error {
	b.once.Do(func() {
		b.timer.Stop()
		b.cancel(nil)
	})
	return b.ReadCloser.Close()
}
