package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"iter"
	"net/http"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/indusagi/induscode/internal/callids"
)

// cancelFilter makes the SDK's event streams (--sse) honour
// notifications/cancelled as the other transports do: the receiver of a
// cancellation does not answer the call. The SDK answers every call it
// took, cancelled or not, so the filter watches what goes in and out:
// it reads the calls and cancellations of each POST before the SDK does,
// and drops the answer of a cancelled call from the session's event
// store (so a resumed stream does not replay it) and from the stream
// being written. The call's stream then ends with no message for it.
type cancelFilter struct {
	store mcp.EventStore // the SDK's, wrapped

	mu       sync.Mutex
	sessions map[string]*callids.Cancels
}

func newCancelFilter(store mcp.EventStore) *cancelFilter {
	return &cancelFilter{store: store, sessions: map[string]*callids.Cancels{}}
}

// session returns the cancels of session id, nil for a session the SDK
// has not opened a stream of (an unknown id is not kept).
func (f *cancelFilter) session(id string) *callids.Cancels {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.sessions[id]
}

// wrap is next with the filter on every request of a session.
func (f *cancelFilter) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c := f.session(r.Header.Get(sessionHeader))
		if c == nil {
			next.ServeHTTP(w, r) // initialize, or a session that is not
			return
		}
		if r.Method == http.MethodPost && r.Body != nil {
			body, err := io.ReadAll(r.Body)
			// The SDK reads the body as it came, its failure included
			// (over the size bound, too slow).
			var rest io.Reader = bytes.NewReader(body)
			if err != nil {
				rest = io.MultiReader(rest, errReader{err})
			}
			r.Body = struct {
				io.Reader
				io.Closer
			}{rest, r.Body}
			if err == nil {
				enter(c, body)
			}
		}
		next.ServeHTTP(&filteredStream{ResponseWriter: w, calls: c}, r)
	})
}

// enter books the calls and cancellations of a POST body: one message or
// a batch of them. What does not parse is the SDK's to refuse.
func enter(c *callids.Cancels, body []byte) {
	type message struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			RequestID json.RawMessage `json:"requestId"`
		} `json:"params"`
	}
	var batch []message
	if body = bytes.TrimSpace(body); len(body) > 0 && body[0] == '[' {
		if json.Unmarshal(body, &batch) != nil {
			return
		}
	} else {
		var m message
		if json.Unmarshal(body, &m) != nil {
			return
		}
		batch = []message{m}
	}
	for _, m := range batch {
		switch {
		case m.Method == "":
		case m.ID != nil:
			c.Take(m.ID)
		case m.Method == "notifications/cancelled":
			c.Cancel(m.Params.RequestID)
		}
	}
}

// answerID returns the id of a JSON-RPC response, or nil for any other
// message.
func answerID(data []byte) json.RawMessage {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method *string         `json:"method"`
	}
	if json.Unmarshal(data, &m) != nil || m.Method != nil {
		return nil
	}
	return m.ID
}

// filteredStream drops from an event stream the answers of cancelled
// calls. The SDK writes each event with one Write.
type filteredStream struct {
	http.ResponseWriter
	calls *callids.Cancels
}

func (s *filteredStream) Write(p []byte) (int, error) {
	if id := answerID(eventData(p)); id != nil && s.calls.Answer(id, true) {
		return len(p), nil
	}
	return s.ResponseWriter.Write(p)
}

// Unwrap lets http.ResponseController flush the stream.
func (s *filteredStream) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// eventData is the data of one server-sent event as the SDK writes it
// (one data line), or nil when p is not such an event.
func eventData(p []byte) []byte {
	if !bytes.HasSuffix(p, []byte("\n\n")) {
		return nil
	}
	for line := range bytes.SplitSeq(p[:len(p)-2], []byte("\n")) {
		if data, ok := bytes.CutPrefix(line, []byte("data: ")); ok {
			return data
		}
	}
	return nil
}

// The filter is the SDK's event store, so that the answer of a cancelled
// call is never stored for a resumed stream to replay.

// Open is called for every stream of a session, the first one (that of
// initialize) included: the session's cancels start there.
func (f *cancelFilter) Open(ctx context.Context, sessionID, streamID string) error {
	f.mu.Lock()
	if f.sessions[sessionID] == nil {
		f.sessions[sessionID] = new(callids.Cancels)
	}
	f.mu.Unlock()
	return f.store.Open(ctx, sessionID, streamID)
}

func (f *cancelFilter) Append(ctx context.Context, sessionID, streamID string, data []byte) error {
	if c, id := f.session(sessionID), answerID(data); c != nil && id != nil && c.Answer(callids.ClientID(id), false) {
		return nil
	}
	return f.store.Append(ctx, sessionID, streamID, data)
}

func (f *cancelFilter) After(ctx context.Context, sessionID, streamID string, index int) iter.Seq2[[]byte, error] {
	return f.store.After(ctx, sessionID, streamID, index)
}

func (f *cancelFilter) SessionClosed(ctx context.Context, sessionID string) error {
	f.mu.Lock()
	delete(f.sessions, sessionID)
	f.mu.Unlock()
	return f.store.SessionClosed(ctx, sessionID)
}

// errReader fails every read with err.
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }
