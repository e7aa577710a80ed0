package provider

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// WithRetries returns a client that tries a failed call of c again up to
// max times (none when max <= 0) and prices each answer at price (the
// model's list price; the zero Price for a model without one).
func WithRetries(c Client, model ModelID, max int, price Price) Client {
	return &retrying{inner: c, max: max, model: model, price: price}
}

// retrying retries a client's failed calls: rate limits (429), overload
// (529, Anthropic's overloaded_error in the stream), server errors (5xx)
// and dropped connections, waiting as the server's retry-after says or
// with exponential backoff. A call that already streamed a piece to the
// caller is not retried, so nothing is shown twice.
type retrying struct {
	inner Client
	max   int
	model ModelID
	price Price
	// sleep waits d or until ctx ends; tests replace it.
	sleep func(ctx context.Context, d time.Duration) error
}

// Backoff bounds: the first wait, and the longest any wait may be. A
// retry-after beyond MaxRetryWait is not waited for: the call fails with
// the server's answer, which says when to try again.
const (
	firstBackoff = 500 * time.Millisecond
	maxBackoff   = 8 * time.Second
	MaxRetryWait = 60 * time.Second
)

func (r *retrying) Stream(ctx context.Context, req Request, on func(Delta)) (*Response, error) {
	for attempt := 0; ; attempt++ {
		streamed := false
		relay := on
		if on != nil {
			relay = func(d Delta) { streamed = true; on(d) }
		}
		resp, err := r.inner.Stream(ctx, req, relay)
		if err == nil {
			resp.Retries = attempt
			resp.Cost = r.price.Cost(resp.Usage)
			return resp, nil
		}
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		wait, retry := retryable(err)
		if !retry || streamed || attempt >= r.max {
			return nil, &CallError{Model: r.model, Attempts: attempt + 1, Err: err}
		}
		if wait == 0 {
			wait = backoff(attempt)
		} else if wait > MaxRetryWait {
			return nil, &CallError{Model: r.model, Attempts: attempt + 1, Err: err}
		}
		sleep := r.sleep
		if sleep == nil {
			sleep = sleepCtx
		}
		if err := sleep(ctx, wait); err != nil {
			return nil, context.Cause(ctx)
		}
	}
}

// StatusError is a provider's answer that failed a call, in the form the
// retries read: each adapter turns its SDK's error into one, so this
// package decides what to try again without knowing any SDK.
type StatusError struct {
	// Code is the HTTP status; 200 for an error event in a stream that
	// had begun.
	Code int
	// Type is the provider's name for the error ("overloaded_error"),
	// when it gives one.
	Type string
	// Header is the answer's headers (retry-after), or nil.
	Header http.Header
	// ErrorCode is the provider's code for the error, when it gives one
	// beside its type (OpenAI's "context_length_exceeded").
	ErrorCode string
	// Message is the provider's explanation of the error.
	Message string
	// Err is the SDK's error, whose text is the error's.
	Err error
}

// Error is the SDK's error text, with the provider's message added when
// the SDK leaves it out (openai-go gives only the status).
func (e *StatusError) Error() string {
	s := e.Err.Error()
	if e.Message != "" && !strings.Contains(s, e.Message) {
		s += ": " + e.Message
	}
	return s
}
func (e *StatusError) Unwrap() error { return e.Err }

// CallError is a model call that failed for good.
type CallError struct {
	Model    ModelID
	Attempts int
	Err      error
}

func (e *CallError) Error() string {
	if e.Attempts > 1 {
		return fmt.Sprintf("model %s: %v (after %d attempts)", e.Model, e.Err, e.Attempts)
	}
	return fmt.Sprintf("model %s: %v", e.Model, e.Err)
}

func (e *CallError) Unwrap() error { return e.Err }

// StatusCode is the HTTP status of the failed call, or 0.
func (e *CallError) StatusCode() int {
	code, _ := status(e.Err)
	return code
}

func status(err error) (int, http.Header) {
	var se *StatusError
	if errors.As(err, &se) {
		return se.Code, se.Header
	}
	return 0, nil
}

// retryable says whether err is worth another attempt and how long the
// server asked to wait (0: not said).
func retryable(err error) (time.Duration, bool) {
	var se *StatusError
	if errors.As(err, &se) && se.Code == http.StatusOK {
		// An error event in a stream that had begun.
		switch se.Type {
		case "overloaded_error", "api_error", "rate_limit_error",
			// Bedrock's exceptions in its event stream, by the names
			// AWS gives them.
			"throttlingException", "serviceUnavailableException", "internalServerException", "modelStreamErrorException":
			return 0, true
		}
		return 0, false
	}
	code, header := status(err)
	if code == 0 {
		// No answer at all. A dropped, refused or stalled connection
		// is worth another attempt (no server judged the request); a
		// request that could not be built or sent fails the same way
		// every time.
		return 0, transient(err)
	}
	if code != http.StatusTooManyRequests && code != http.StatusRequestTimeout && code != http.StatusConflict && code < 500 {
		return 0, false
	}
	if header != nil {
		return retryAfter(header, time.Now()), true
	}
	return 0, true
}

// transient reports whether err, a call that got no answer, is the
// network's fault: a connection refused, reset or cut short, a timeout,
// a stream that stalled.
func transient(err error) bool {
	var ne net.Error
	switch {
	case errors.Is(err, ErrStalled), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF),
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE),
		errors.Is(err, syscall.ETIMEDOUT), errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return true
	case errors.As(err, &ne):
		return true
	}
	return false
}

// retryAfter reads retry-after-ms, then retry-after (seconds or an HTTP
// date); 0 when neither says.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if ms, err := strconv.ParseFloat(h.Get("Retry-After-Ms"), 64); err == nil && ms > 0 {
		return time.Duration(ms * float64(time.Millisecond))
	}
	v := h.Get("Retry-After")
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s > 0 {
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// backoff is the wait before attempt+1: doubling from firstBackoff up to
// maxBackoff, less up to a quarter at random so clients spread out.
func backoff(attempt int) time.Duration {
	d := firstBackoff << min(attempt, 8)
	d = min(d, maxBackoff)
	return d - time.Duration(rand.Int64N(int64(d/4)+1))
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
