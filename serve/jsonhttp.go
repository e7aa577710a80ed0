package serve

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/indusagi/induscode/internal/callids"
	"github.com/indusagi/induscode/internal/stdioconn"
)

// jsonHTTP serves MCP sessions over Streamable HTTP, answering each call
// with one JSON body: the default of `indusr serve --http`. It is a
// transport under the SDK's server, as internal/stdioconn is for stdio:
// the SDK's own Streamable HTTP transport decodes every request four times
// on its way in (as a batch, as a message, its method, its _meta), each
// time through a decoder that allocates a fresh 32 KiB buffer; here a body
// is decoded once, with encoding/json and the SDK's exact member matching.
// Event streams (--sse), with resumption, stay on the SDK's transport.
//
// What a client sees follows the SDK's transport: POST carries one message
// (a call is answered with its response, anything else with 202), the
// first POST is initialize and its answer carries Mcp-Session-Id, GET opens
// the session's event stream for messages that are not responses
// (progress, list_changed), DELETE ends the session, and an unknown
// session is 404. Host, Origin and the body bound are Handler's guard's.
type jsonHTTP struct {
	server   *mcp.Server
	log      *slog.Logger
	timeout  time.Duration // an idle session ends after this; 0 never
	versions []string      // protocol versions a request may name

	mu       sync.Mutex
	sessions map[string]*httpSession
}

// Header names of the Streamable HTTP transport.
const (
	sessionHeader  = "Mcp-Session-Id"
	versionHeader  = "Mcp-Protocol-Version"
	lastEventIDHdr = "Last-Event-Id"
	// streamBacklog is how many messages wait for a slow GET stream before
	// more are dropped (the server's notifications must never block it).
	streamBacklog = 256
	// statelessOnly is the first protocol version that needs a stateless
	// server; the SDK's stateful transport refuses it too.
	statelessOnly = "2026-07-28"
)

func newJSONHTTP(server *mcp.Server, log *slog.Logger, timeout time.Duration) *jsonHTTP {
	var versions []string
	for _, v := range mcp.SupportedProtocolVersions() {
		if v < statelessOnly {
			versions = append(versions, v)
		}
	}
	return &jsonHTTP{server: server, log: log, timeout: timeout, versions: versions, sessions: map[string]*httpSession{}}
}

func (h *jsonHTTP) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// The stateless generation (2026-07-28 on) is Handler's other
	// transport's; this one serves the sessions of the initialize
	// handshake.
	if v := r.Header.Get(versionHeader); v != "" && !slices.Contains(h.versions, v) {
		http.Error(w, fmt.Sprintf("Bad Request: Unsupported protocol version (supported versions: %s)", strings.Join(h.versions, ",")), http.StatusBadRequest)
		return
	}
	switch r.Method {
	case http.MethodPost:
		h.post(w, r)
	case http.MethodGet:
		h.get(w, r)
	case http.MethodDelete:
		s := h.lookup(w, r, "DELETE")
		if s == nil {
			return
		}
		s.end()
		w.WriteHeader(http.StatusNoContent)
	default:
		w.Header().Set("Allow", "GET, POST, DELETE")
		http.Error(w, "Method Not Allowed", http.StatusMethodNotAllowed)
	}
}

// lookup finds the session a request names, or answers 400 or 404.
func (h *jsonHTTP) lookup(w http.ResponseWriter, r *http.Request, method string) *httpSession {
	id := r.Header.Get(sessionHeader)
	if id == "" {
		http.Error(w, fmt.Sprintf("Bad Request: %s requires an %s header", method, sessionHeader), http.StatusBadRequest)
		return nil
	}
	h.mu.Lock()
	s := h.sessions[id]
	h.mu.Unlock()
	if s == nil {
		http.Error(w, "session not found", http.StatusNotFound)
	}
	return s
}

func (h *jsonHTTP) post(w http.ResponseWriter, r *http.Request) {
	if ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); ct != "application/json" {
		http.Error(w, "Content-Type must be 'application/json'", http.StatusUnsupportedMediaType)
		return
	}
	if jsonOK, streamOK := accepts(r.Header.Values("Accept")); !jsonOK || !streamOK {
		http.Error(w, "Accept must contain both 'application/json' and 'text/event-stream'", http.StatusBadRequest)
		return
	}
	if len(r.Header.Values(lastEventIDHdr)) > 0 {
		http.Error(w, "can't send Last-Event-ID for POST request", http.StatusBadRequest)
		return
	}
	body, err := io.ReadAll(r.Body) // bounded by Handler's guard
	if err != nil {
		if mbe := (*http.MaxBytesError)(nil); errors.As(err, &mbe) {
			http.Error(w, fmt.Sprintf("request body exceeds %d bytes", mbe.Limit), http.StatusRequestEntityTooLarge)
			return
		}
		http.Error(w, "failed to read body", http.StatusBadRequest)
		return
	}
	msg, rawID, err := stdioconn.Decode(body)
	if err != nil {
		http.Error(w, fmt.Sprintf("malformed payload: %v", err), http.StatusBadRequest)
		return
	}
	req, isReq := msg.(*jsonrpc.Request)
	var s *httpSession
	if r.Header.Get(sessionHeader) == "" && isReq && req.IsCall() && req.Method == "initialize" {
		if s, err = h.open(r); err != nil {
			h.log.Error("serve: opening an HTTP session", "err", err)
			http.Error(w, "failed connection", http.StatusInternalServerError)
			return
		}
		// A session whose initialize failed, or whose client left before
		// the answer, could never be used: it ends with this request.
		defer func() {
			if s.ss.InitializeParams() == nil {
				s.end()
			}
		}()
	} else if s = h.lookup(w, r, "POST"); s == nil {
		return
	}
	s.busy()
	defer s.idle()
	if isReq {
		req.Extra = &mcp.RequestExtra{Header: r.Header}
	}
	if !isReq || !req.IsCall() {
		if isReq && !s.book.Cancel(req) {
			w.WriteHeader(http.StatusAccepted) // it names no call in flight
			return
		}
		if !s.deliver(msg) {
			http.Error(w, "session is closing", http.StatusNotFound)
			return
		}
		w.WriteHeader(http.StatusAccepted)
		return
	}
	// The id stays taken until the server answers, even if this client
	// leaves first: a new call with the id must not get the old answer.
	if err := s.book.Take(req, rawID); err != nil {
		data, _ := callids.Encode(&jsonrpc.Response{Error: &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: err.Error()}}, rawID)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write(data)
		return
	}
	answer := s.await(req.ID)
	if !s.deliver(msg) {
		s.forget(req.ID)
		http.Error(w, "session is closing", http.StatusNotFound)
		return
	}
	select {
	case data := <-answer:
		if data == nil {
			// The client cancelled the call: nothing is sent for it.
			w.WriteHeader(http.StatusAccepted)
			return
		}
		if req.Method == "initialize" && s.ss.InitializeParams() != nil {
			w.Header().Set(sessionHeader, s.id)
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-cache, no-transform")
		_, _ = w.Write(data)
	case <-r.Context().Done(): // the client went away; the call's answer has nowhere to go
	case <-s.done:
		// The session ended (DELETE, timeout, shutdown) before the answer.
		http.Error(w, "session closed before the call was answered", http.StatusNotFound)
	}
}

// get streams the session's messages that are not responses (progress,
// list_changed, logging) as server-sent events until the client goes
// away or the session ends.
func (h *jsonHTTP) get(w http.ResponseWriter, r *http.Request) {
	if _, streamOK := accepts(r.Header.Values("Accept")); !streamOK {
		http.Error(w, "Accept must contain 'text/event-stream' for GET requests", http.StatusBadRequest)
		return
	}
	s := h.lookup(w, r, "GET")
	if s == nil {
		return
	}
	events, ok := s.listen()
	if !ok {
		http.Error(w, "Conflict: this session's event stream is already open", http.StatusConflict)
		return
	}
	defer s.unlisten(events)
	s.busy()
	defer s.idle()
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache, no-transform")
	w.Header().Set("Connection", "keep-alive")
	w.WriteHeader(http.StatusOK)
	// A comment gets the headers through proxies that hold them until
	// the first bytes of the body.
	if _, err := io.WriteString(w, ": ok\n\n"); err != nil {
		return
	}
	flusher, _ := w.(http.Flusher)
	if flusher != nil {
		flusher.Flush()
	}
	for {
		select {
		case data := <-events:
			if _, err := fmt.Fprintf(w, "event: message\ndata: %s\n\n", data); err != nil {
				return
			}
			if flusher != nil {
				flusher.Flush()
			}
		case <-r.Context().Done():
			return
		case <-s.done:
			return
		}
	}
}

// accepts reads Accept headers: whether JSON and event streams are both
// acceptable, wildcards counting.
func accepts(values []string) (jsonOK, streamOK bool) {
	for _, v := range values {
		for _, part := range strings.Split(v, ",") {
			mt, _, _ := mime.ParseMediaType(strings.TrimSpace(part))
			switch mt {
			case "*/*":
				jsonOK, streamOK = true, true
			case "application/json", "application/*":
				jsonOK = true
			case "text/event-stream", "text/*":
				streamOK = true
			}
		}
	}
	return jsonOK, streamOK
}

// open starts a session for an initialize request and connects the
// server to it.
func (h *jsonHTTP) open(r *http.Request) (*httpSession, error) {
	s := &httpSession{
		id:       rand.Text(),
		h:        h,
		incoming: make(chan jsonrpc.Message, 10),
		done:     make(chan struct{}),
		waiting:  map[jsonrpc.ID]chan []byte{},
	}
	if h.timeout > 0 {
		s.timer = time.AfterFunc(h.timeout, s.expire)
		s.timer.Stop()
	}
	// The session outlives the request that opened it; it keeps the
	// request's values (a host's middleware may have put some there).
	ss, err := h.server.Connect(context.WithoutCancel(r.Context()), s, nil)
	if err != nil {
		s.Close()
		return nil, err
	}
	s.ss = ss
	h.mu.Lock()
	select {
	case <-s.done: // closed already: Close found nothing to remove
	default:
		h.sessions[s.id] = s
	}
	h.mu.Unlock()
	return s, nil
}

// httpSession is one MCP session over HTTP: the mcp.Transport and
// mcp.Connection the server reads from and writes to.
type httpSession struct {
	id       string
	h        *jsonHTTP
	ss       *mcp.ServerSession
	incoming chan jsonrpc.Message
	done     chan struct{}
	once     sync.Once
	timer    *time.Timer // ends an idle session; nil without a timeout

	mu      sync.Mutex
	book    callids.Book               // the calls taken, by the client's ids
	waiting map[jsonrpc.ID]chan []byte // calls waiting for their answer (nil: cancelled)
	events  chan []byte                // the open GET stream's, or nil
	active  int                        // requests in flight, GET streams included
	closed  bool                       // no idle timer after Close
}

var (
	_ mcp.Transport                = (*httpSession)(nil)
	_ mcp.Connection               = (*httpSession)(nil)
	_ mcp.ProtocolVersionSupporter = (*httpSession)(nil)
)

// Connect makes the session the server's connection.
func (s *httpSession) Connect(context.Context) (mcp.Connection, error) { return s, nil }

// SupportsProtocolVersion: the versions a stateful HTTP session can
// serve.
func (s *httpSession) SupportsProtocolVersion(v string) bool { return slices.Contains(s.h.versions, v) }

func (s *httpSession) SessionID() string { return s.id }

func (s *httpSession) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case msg := <-s.incoming:
		return msg, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-s.done:
		return nil, io.EOF
	}
}

// rejected marks a message the session could not deliver; the SDK keeps
// the connection (a JSON-RPC error with the code -32005 it reserves).
func rejected(format string, args ...any) error {
	return &jsonrpc.Error{Code: -32005, Message: fmt.Sprintf(format, args...)}
}

// Write hands a response to the POST waiting for it, and anything else to
// the GET stream when one is open.
func (s *httpSession) Write(ctx context.Context, msg jsonrpc.Message) error {
	select {
	case <-s.done:
		return rejected("session %s is closed", s.id)
	default:
	}
	if resp, ok := msg.(*jsonrpc.Response); ok {
		s.mu.Lock()
		answer := s.waiting[resp.ID]
		delete(s.waiting, resp.ID)
		s.mu.Unlock()
		raw, send, booked := s.book.Answer(resp)
		if answer == nil || !booked {
			return rejected("no request waits for the response to %v", resp.ID.Raw())
		}
		var data []byte
		if send {
			var err error
			if data, err = callids.Encode(resp, raw); err != nil {
				data, _ = callids.Encode(&jsonrpc.Response{Error: &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "encoding the response: " + err.Error()}}, raw)
			}
		}
		answer <- data // buffered: one answer per call
		return nil
	}
	if req, ok := msg.(*jsonrpc.Request); ok {
		// A client's ids the SDK echoes (a progress token, a listen
		// stream's subscriptionId) go out as the client wrote them.
		restored := *req
		s.book.Outgoing(&restored)
		msg = &restored
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.events == nil {
		return rejected("no event stream is open (a client opens one with GET)")
	}
	select {
	case s.events <- data:
		return nil
	default:
		return rejected("the event stream is %d messages behind", streamBacklog)
	}
}

// Close ends the session: the server's side of it, its open requests and
// its event stream. The SDK calls it when the session ends.
func (s *httpSession) Close() error {
	s.once.Do(func() {
		close(s.done)
		s.mu.Lock()
		s.closed = true
		if s.timer != nil {
			s.timer.Stop()
		}
		s.mu.Unlock()
		s.h.mu.Lock()
		delete(s.h.sessions, s.id)
		s.h.mu.Unlock()
	})
	return nil
}

// end closes the server's session, which closes the connection.
func (s *httpSession) end() {
	if s.ss != nil {
		_ = s.ss.Close()
	}
	_ = s.Close()
}

// expire ends a session no request touched for the timeout.
func (s *httpSession) expire() {
	s.mu.Lock()
	idle := s.active == 0
	s.mu.Unlock()
	if idle {
		s.h.log.Info("serve: HTTP session idle too long, ending it", "session", s.id)
		s.end()
	}
}

func (s *httpSession) busy() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.active++
	if s.timer != nil {
		s.timer.Stop()
	}
}

func (s *httpSession) idle() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.active--; s.active == 0 && s.timer != nil && !s.closed {
		s.timer.Reset(s.h.timeout)
	}
}

// deliver passes a message to the server, unless the session ends first.
func (s *httpSession) deliver(msg jsonrpc.Message) bool {
	select {
	case s.incoming <- msg:
		return true
	case <-s.done:
		return false
	}
}

// await registers a call booked under id (unique: the book's own).
func (s *httpSession) await(id jsonrpc.ID) <-chan []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	answer := make(chan []byte, 1)
	s.waiting[id] = answer
	return answer
}

// forget drops a call that was never delivered.
func (s *httpSession) forget(id jsonrpc.ID) {
	s.mu.Lock()
	delete(s.waiting, id)
	s.mu.Unlock()
	s.book.Answer(&jsonrpc.Response{ID: id})
}

// listen opens the session's event stream; false if one is open.
func (s *httpSession) listen() (chan []byte, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.events != nil {
		return nil, false
	}
	s.events = make(chan []byte, streamBacklog)
	return s.events, true
}

func (s *httpSession) unlisten(events chan []byte) {
	s.mu.Lock()
	if s.events == events {
		s.events = nil
	}
	s.mu.Unlock()
}
