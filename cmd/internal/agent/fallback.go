package agent

import (
	"context"
	"errors"
	"net/http"
	"sync"

	"github.com/indusagi/induscode/provider"
)

// withFallback returns an opener whose clients answer a call with the
// fallback model when the main one fails for good for want of capacity
// (overloaded, rate limited, a server error; after the client's own
// retries) before any of its answer arrived: Claude Code's
// --fallback-model. A failure the request itself causes (a 400) is not
// retried elsewhere, and neither is a stream that broke midway, whose
// pieces were already shown.
func withFallback(open provider.Opener, fallback string) provider.Opener {
	if fallback == "" {
		return open
	}
	return func(id string) (provider.Client, provider.ModelID, error) {
		c, m, err := open(id)
		if err != nil || id == fallback {
			return c, m, err
		}
		return &fallbackClient{main: c, open: func() (provider.Client, provider.ModelID, error) { return open(fallback) }}, m, nil
	}
}

type fallbackClient struct {
	main provider.Client
	open func() (provider.Client, provider.ModelID, error)

	once  sync.Once
	other provider.Client
	model provider.ModelID
	err   error
}

func (f *fallbackClient) Stream(ctx context.Context, req provider.Request, on func(provider.Delta)) (*provider.Response, error) {
	streamed := false
	seen := func(d provider.Delta) {
		streamed = true
		if on != nil {
			on(d)
		}
	}
	resp, err := f.main.Stream(ctx, req, seen)
	if err == nil || streamed || ctx.Err() != nil || !capacity(err) {
		return resp, err
	}
	f.once.Do(func() { f.other, f.model, f.err = f.open() })
	if f.err != nil {
		return nil, errors.Join(err, f.err)
	}
	req.Model = f.model.Name
	return f.other.Stream(ctx, req, on)
}

// capacity reports whether err is the provider's lack of capacity rather
// than a fault of the request.
func capacity(err error) bool {
	var se *provider.StatusError
	if !errors.As(err, &se) {
		return false
	}
	return se.Code == http.StatusTooManyRequests || se.Code >= 500 || se.Type == "overloaded_error"
}
