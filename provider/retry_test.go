package provider

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"syscall"
	"testing"
	"time"
)

// script is a client that fails with its errors in turn, then answers.
type script struct {
	errs  []error
	calls int
}

func (s *script) Stream(context.Context, Request, func(Delta)) (*Response, error) {
	s.calls++
	if s.calls <= len(s.errs) {
		return nil, s.errs[s.calls-1]
	}
	return &Response{Message: Message{Role: Assistant, Blocks: []Block{{Kind: TextBlock, Text: "ok"}}}}, nil
}

// The retries read only the neutral StatusError an adapter makes: what is
// retried, how long the server's retry-after asks to wait, and what
// gives up at once with the status kept.
func TestRetriesReadTheNeutralStatusError(t *testing.T) {
	t.Parallel()
	sdk := errors.New("the SDK's own error text")
	after := http.Header{"Retry-After-Ms": []string{"1500"}}
	cases := []struct {
		name    string
		err     error
		retried bool
		wait    time.Duration // 0: backoff, not asserted
	}{
		{"rate limit with retry-after-ms", &StatusError{Code: 429, Header: after, Err: sdk}, true, 1500 * time.Millisecond},
		{"overloaded", &StatusError{Code: 529, Err: sdk}, true, 0},
		{"overloaded in a begun stream", &StatusError{Code: 200, Type: "overloaded_error", Err: sdk}, true, 0},
		{"refused in a begun stream", &StatusError{Code: 200, Type: "invalid_request_error", Err: sdk}, false, 0},
		{"bad request", &StatusError{Code: 400, Err: sdk}, false, 0},
		{"connection refused", &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}, true, 0},
		{"stream cut short", fmt.Errorf("reading the stream: %w", io.ErrUnexpectedEOF), true, 0},
		{"stalled", &StallError{After: time.Minute}, true, 0},
		{"a request that cannot be built", errors.New("the SDK's own error text"), false, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			inner := &script{errs: []error{tc.err}}
			r := WithRetries(inner, ModelID{"anthropic", "claude-sonnet-4-5"}, 2, Price{}).(*retrying)
			var waited []time.Duration
			r.sleep = func(_ context.Context, d time.Duration) error { waited = append(waited, d); return nil }
			resp, err := r.Stream(context.Background(), Request{}, nil)
			if !tc.retried {
				var ce *CallError
				if !errors.As(err, &ce) || ce.Attempts != 1 || inner.calls != 1 || ce.Error() != "model anthropic/claude-sonnet-4-5: the SDK's own error text" {
					t.Fatalf("err %v after %d calls", err, inner.calls)
				}
				var se *StatusError
				if errors.As(err, &se) && ce.StatusCode() != se.Code {
					t.Errorf("status %d, want %d", ce.StatusCode(), se.Code)
				}
				return
			}
			if err != nil || resp.Retries != 1 || inner.calls != 2 || len(waited) != 1 {
				t.Fatalf("resp %+v err %v after %d calls, waits %v", resp, err, inner.calls, waited)
			}
			if tc.wait != 0 && waited[0] != tc.wait {
				t.Errorf("waited %v, the server asked %v", waited[0], tc.wait)
			}
		})
	}
}
