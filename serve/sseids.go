package serve

import (
	"bytes"
	"io"
	"mime"
	"net/http"

	"github.com/indusagi/induscode/internal/callids"
)

// clientIDs keeps the ids a client writes exactly as written through the
// SDK's event streams (--sse), as the book does for the other transports:
// the SDK reads an id as an int64 or a string, so 18446744073709551616 or
// 1.5 would come back changed (and 1.5 would collide with a call 1). Each
// POST's calls, cancellations and progress tokens go to the SDK wrapped
// (callids.WrapJSON), and every message the SDK writes back, as an event
// or a JSON body, gets the client's JSON again (callids.RestoreJSON): a
// response's id, a listen stream's subscriptionId, a progress token. The
// codec keeps no state, so an event replayed to a resumed stream comes
// back right too.
func clientIDs(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.Body != nil && r.Body != http.NoBody {
			body, err := io.ReadAll(r.Body)
			var rest io.Reader
			if err != nil {
				// The SDK reads the body as it came, its failure included
				// (over the size bound, too slow).
				rest = io.MultiReader(bytes.NewReader(body), errReader{err})
			} else {
				body = callids.WrapJSON(body)
				rest = bytes.NewReader(body)
				r.ContentLength = int64(len(body))
			}
			r.Body = struct {
				io.Reader
				io.Closer
			}{rest, r.Body}
		}
		next.ServeHTTP(&restoringWriter{ResponseWriter: w}, r)
	})
}

// restoringWriter puts the client's ids back into what the SDK writes:
// each event (the SDK writes one per Write) or a JSON body (one Write).
type restoringWriter struct {
	http.ResponseWriter
}

func (w *restoringWriter) Write(p []byte) (int, error) {
	out := p
	if data := eventData(p); data != nil {
		if restored := callids.RestoreJSON(data); !bytes.Equal(restored, data) {
			out = replaceEventData(p, restored)
		}
	} else if ct, _, _ := mime.ParseMediaType(w.Header().Get("Content-Type")); ct == "application/json" {
		out = callids.RestoreJSON(p)
	}
	if _, err := w.ResponseWriter.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Unwrap lets http.ResponseController flush the stream.
func (w *restoringWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// replaceEventData is the event p with its data line's JSON replaced.
func replaceEventData(p, data []byte) []byte {
	body := p[:len(p)-2]
	start := 0
	if i := bytes.LastIndex(body, []byte("\ndata: ")); i >= 0 {
		start = i + 1
	} else if !bytes.HasPrefix(body, []byte("data: ")) {
		return p
	}
	end := len(body)
	if n := bytes.IndexByte(body[start:], '\n'); n >= 0 {
		end = start + n
	}
	out := make([]byte, 0, len(p)+len(data))
	out = append(out, p[:start]...)
	out = append(out, "data: "...)
	out = append(out, data...)
	out = append(out, p[end:]...)
	return out
}
