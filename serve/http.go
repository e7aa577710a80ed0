package serve

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Endpoint is the path of the MCP endpoint over HTTP.
const Endpoint = "/mcp"

// HTTP defaults.
const (
	// DefaultAddr is where `indusr serve --http` listens when given no
	// address: loopback only.
	DefaultAddr = "127.0.0.1:8765"
	// DefaultSessionTimeout ends an HTTP session, and its deck session with
	// its background processes, after this long without a request (an
	// open event stream, GET, counts as one): a client that went away
	// without saying so is not kept for ever.
	DefaultSessionTimeout = time.Hour
	// DefaultMaxBody bounds a request body; a write of a large file is
	// the largest honest request.
	DefaultMaxBody = 16 << 20
	// DefaultBodyTimeout bounds the time to read a request body, so that
	// a client that sends headers and then stalls cannot hold a
	// connection (and a goroutine) for ever: the largest honest body,
	// 16 MiB, takes well under this on any link a client would use.
	DefaultBodyTimeout = 30 * time.Second
	// DefaultMaxSessions caps the HTTP sessions open at once. Each holds a
	// deck session with its processes until it ends or idles out; this is
	// far beyond the clients of one person, and far below what would
	// exhaust the machine.
	DefaultMaxSessions = 100
)

// HTTPOptions configure serving over Streamable HTTP.
type HTTPOptions struct {
	// Addr is host:port to listen on; "" means DefaultAddr.
	Addr string
	// Token, when set, is required of every request as
	// "Authorization: Bearer <token>". A non-loopback Addr needs one, and
	// loopback should have one too wherever another user shares the
	// machine: `indusr serve --http` makes one for each run.
	Token string
	// SessionTimeout is DefaultSessionTimeout when 0; negative means none.
	SessionTimeout time.Duration
	// MaxBody is DefaultMaxBody when 0.
	MaxBody int64
	// BodyTimeout bounds reading a request's body; DefaultBodyTimeout
	// when 0.
	BodyTimeout time.Duration
	// MaxSessions caps the sessions open at once: a new one past it is
	// refused with 503. DefaultMaxSessions when 0; negative means none.
	MaxSessions int
	// EventStreams answers each POST with an event stream instead of one
	// JSON body. The notifications of a call (progress) then travel on the
	// call's own stream, and a client whose connection drops in the middle
	// of a long call reconnects with Last-Event-ID and gets the rest. Off by
	// default: one JSON body per call costs the server about a fifth less
	// (no event framing, flushes or resumption store), and the SDK clients
	// still get progress live, on the stream they open with GET.
	EventStreams bool
	// PollAfter, with EventStreams, closes the event stream of a call
	// that runs longer, telling the client (with a retry field) to
	// reconnect with Last-Event-ID, where the rest of the call comes:
	// polling instead of one long-held connection, for proxies that cut
	// those. Clients of protocol 2025-11-25 and later follow it. 0 keeps
	// every stream open until its call ends.
	PollAfter time.Duration
}

// pollRetry is the reconnection delay a closed call stream tells its
// client: soon enough that a result waits at most this long, seldom
// enough to cost nothing.
const pollRetry = time.Second

// ErrNeedsToken refuses a non-loopback address without a token: anyone who
// can reach the port could run commands as this user.
var ErrNeedsToken = errors.New("listening beyond loopback needs a bearer token (--token or INDUSR_TOKEN)")

// Handler returns the HTTP handler of the server: the MCP endpoint at
// [Endpoint] behind the token check and the guards (Host and Origin
// against DNS rebinding and foreign pages, the body bound). Calls are
// answered with JSON bodies by this package's own transport
// (jsonhttp.go), or with event streams by the SDK's when
// [HTTPOptions.EventStreams] is set.
func (s *Server) Handler(o HTTPOptions) http.Handler {
	timeout := o.SessionTimeout
	switch {
	case timeout == 0:
		timeout = DefaultSessionTimeout
	case timeout < 0:
		timeout = 0
	}
	maxBody := o.MaxBody
	if maxBody <= 0 {
		maxBody = DefaultMaxBody
	}
	var h http.Handler
	if o.EventStreams {
		s.pollAfter.Store(int64(o.PollAfter))
		cancels := newCancelFilter(mcp.NewMemoryEventStore(nil))
		h = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp }, &mcp.StreamableHTTPOptions{
			SessionTimeout: timeout,
			// The guard holds a body to maxBody; the SDK gets it with the
			// client's ids wrapped (clientIDs), somewhat longer.
			MaxRequestBodyBytes: 2*maxBody + 4096,
			Logger:              s.log,
			// The guard checks Host already, ignoring case as DNS does
			// (the SDK refuses "LOCALHOST").
			DisableLocalhostProtection: true,
			// Resumable streams: a client whose event stream drops in the
			// middle of a long call reconnects with Last-Event-ID and gets
			// the rest (progress, the result) instead of losing the call.
			// The store keeps the SDK's default of 10 MiB of recent events.
			EventStore: cancels,
		})
		h = s.sessionVersion(cancels.wrap(clientIDs(h)))
	} else {
		h = newJSONHTTP(s.mcp, s.log, timeout)
	}
	h = generations(s.statelessHandler(maxBody), h)
	g := guardOptions{maxBody: maxBody, bodyTimeout: o.BodyTimeout, maxSessions: o.MaxSessions, sessions: s.openSessions}
	if g.bodyTimeout <= 0 {
		g.bodyTimeout = DefaultBodyTimeout
	}
	if g.maxSessions == 0 {
		g.maxSessions = DefaultMaxSessions
	}
	mux := http.NewServeMux()
	mux.Handle(Endpoint, guard(g, h))
	var root http.Handler = mux
	if o.Token != "" {
		root = requireToken(o.Token, mux)
	}
	return root
}

// generations routes a request by the protocol generation it speaks:
// one whose Mcp-Protocol-Version header names 2026-07-28 or later (the
// stateless protocol: server/discover, per-request _meta, listen streams)
// to stateless, anything else (the initialize handshake and the sessions
// it opens) to sessions.
func generations(stateless, sessions http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if isStateless(r.Header) {
			stateless.ServeHTTP(w, r)
			return
		}
		sessions.ServeHTTP(w, r)
	})
}

// isStateless reports whether a request's headers name the stateless
// protocol generation.
func isStateless(h http.Header) bool { return h.Get(versionHeader) >= statelessOnly }

// statelessHandler serves the stateless protocol with the SDK's
// transport: each POST is a whole request (its answer and the
// notifications of its call on the POST's own event stream; a listen
// stream held open until the client leaves), and a client that drops its
// POST cancels the call. The ids the client writes come back as written
// (clientIDs). Stateless clients have no session of their own: their
// calls share one deck session, so a file read in one request may be
// edited in the next and a background process started in one is read in
// another (see Server.handler).
func (s *Server) statelessHandler(maxBody int64) http.Handler {
	return clientIDs(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp }, &mcp.StreamableHTTPOptions{
		Stateless:                    true,
		PropagateRequestCancellation: true,
		MaxRequestBodyBytes:          2*maxBody + 4096, // see clientIDs
		Logger:                       s.log,
		DisableLocalhostProtection:   true, // the guard checks Host
	}))
}

// sessionVersion makes a request of a session speak the session's
// protocol version when its Mcp-Protocol-Version header names an older
// one (as some clients send on later requests): the SDK decides by the
// header whether a stream starts with a priming event, which resumption
// needs, and whether a closed stream says when to reconnect.
func (s *Server) sessionVersion(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sid, v := r.Header.Get(sessionHeader), r.Header.Get(versionHeader)
		if sid != "" && v != "" && v < primingVersion {
			for ss := range s.mcp.Sessions() {
				if ss.ID() != sid {
					continue
				}
				if p := ss.InitializeParams(); p != nil && p.ProtocolVersion > v && p.ProtocolVersion < statelessOnly &&
					slices.Contains(mcp.SupportedProtocolVersions(), p.ProtocolVersion) {
					r.Header.Set(versionHeader, p.ProtocolVersion)
				}
				break
			}
		}
		next.ServeHTTP(w, r)
	})
}

// primingVersion is the first protocol version whose event streams start
// with a priming event (SEP-1699).
const primingVersion = "2025-11-25"

// requireToken answers 401 to a request without the bearer token. The
// compare is constant-time over digests, so neither the token's bytes nor
// its length leak through timing.
func requireToken(token string, next http.Handler) http.Handler {
	want := sha256.Sum256([]byte(token))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		sum := sha256.Sum256([]byte(strings.TrimSpace(got)))
		if !ok || subtle.ConstantTimeCompare(sum[:], want[:]) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="indusr"`)
			http.Error(w, "Unauthorized: send the server's token as \"Authorization: Bearer <token>\"", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// guardOptions are the bounds the guard keeps.
type guardOptions struct {
	maxBody     int64
	bodyTimeout time.Duration
	maxSessions int        // negative: no cap
	sessions    func() int // the sessions open now
}

// guard refuses what must not reach the deck and bounds request bodies:
//   - a Host beyond loopback on a loopback listener: DNS rebinding, a page
//     on another site that resolved its own name to 127.0.0.1 (names are
//     matched ignoring case, as DNS does);
//   - an Origin of another site: a browser sends one, and a page on
//     evil.example must not drive a local deck (clients that are not
//     browsers send none); more than one Origin is refused too, rather
//     than judged by the first;
//   - a new session past the cap (503; a request of the stateless
//     protocol opens none);
//   - a body over maxBody (413), or not read in full within bodyTimeout.
func guard(o guardOptions, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok && isLoopbackAddr(local.String()) && !isLoopbackAddr(r.Host) {
			http.Error(w, fmt.Sprintf("Forbidden: invalid Host header %q", r.Host), http.StatusForbidden)
			return
		}
		switch origins := r.Header.Values("Origin"); {
		case len(origins) > 1:
			http.Error(w, "Forbidden: more than one Origin header; a request has one origin", http.StatusForbidden)
			return
		case len(origins) == 1 && origins[0] != "" && !sameSite(origins[0], r.Host):
			http.Error(w, fmt.Sprintf("Forbidden: Origin %q may not use this server", origins[0]), http.StatusForbidden)
			return
		}
		if r.Method == http.MethodPost && r.Header.Get(sessionHeader) == "" && !isStateless(r.Header) && o.maxSessions >= 0 && o.sessions() >= o.maxSessions {
			w.Header().Set("Retry-After", "60")
			http.Error(w, fmt.Sprintf("Service Unavailable: this server has %d sessions open, its limit; end one (DELETE with its Mcp-Session-Id) or raise --max-sessions", o.maxSessions), http.StatusServiceUnavailable)
			return
		}
		if r.Body != nil && r.Body != http.NoBody {
			r.Body = deadlineBody(w, http.MaxBytesReader(w, r.Body, o.maxBody), o.bodyTimeout)
		}
		next.ServeHTTP(w, r)
	})
}

// deadlineBody bounds the time to read body: the connection's read
// deadline is set now and cleared once the body has been read (or failed),
// so that a response streamed afterwards is not cut by it.
func deadlineBody(w http.ResponseWriter, body io.ReadCloser, timeout time.Duration) io.ReadCloser {
	rc := http.NewResponseController(w)
	if rc.SetReadDeadline(time.Now().Add(timeout)) != nil {
		return body // a writer that cannot (a test recorder): the body as it is
	}
	return &timedBody{ReadCloser: body, rc: rc}
}

type timedBody struct {
	io.ReadCloser
	rc   *http.ResponseController
	done bool
}

// Read clears the deadline at the body's end; after a failure it stays,
// so the server's own attempt to drain the rest fails at once too.
func (b *timedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF && !b.done {
		b.done = true
		_ = b.rc.SetReadDeadline(time.Time{})
	}
	return n, err
}

// isLoopbackAddr reports whether a host or host:port names loopback.
func isLoopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	return isLoopbackHost(strings.Trim(host, "[]"))
}

// sameSite reports whether origin names the host being served or a
// loopback host.
func sameSite(origin, host string) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false
	}
	if strings.EqualFold(u.Host, host) {
		return true
	}
	return isLoopbackHost(u.Hostname())
}

func isLoopbackHost(h string) bool {
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// LoopbackAddr reports whether the listen address addr (host:port) is
// on loopback only.
func LoopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	return err == nil && isLoopbackHost(host)
}

// checkAddr refuses a non-loopback listen address without a token.
func checkAddr(addr, token string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--http %q: %v (use HOST:PORT, e.g. %s)", addr, err, DefaultAddr)
	}
	if isLoopbackHost(host) || token != "" {
		return nil
	}
	if host == "" {
		host = "every interface"
	}
	return fmt.Errorf("--http %s listens on %s: %w", addr, host, ErrNeedsToken)
}

// RunHTTP listens on o.Addr and serves until ctx ends; then every
// session is closed (their processes stopped, the grafted servers torn
// down) and it returns nil. ready, when set, is called with the endpoint
// URL once the port is bound. On an address beyond loopback the sessions'
// webfetch refuses private, loopback and link-local addresses.
func (s *Server) RunHTTP(ctx context.Context, o HTTPOptions, ready func(url string)) error {
	defer s.Close()
	if o.Addr == "" {
		o.Addr = DefaultAddr
	}
	if err := checkAddr(o.Addr, o.Token); err != nil {
		return err
	}
	if host, _, _ := net.SplitHostPort(o.Addr); !isLoopbackHost(host) {
		// Others can reach the deck: webfetch must not become their way
		// into this machine's network. Set before any session opens.
		s.opts.Session.Framework.Web.RefusePrivate = true
	}
	ln, err := net.Listen("tcp", o.Addr)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	srv := &http.Server{
		Handler:           s.Handler(o),
		ReadHeaderTimeout: 10 * time.Second,
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	if ready != nil {
		ready(endpointURL(ln.Addr()))
	}
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	// Sessions first: calls in flight are cancelled with their processes,
	// and the event streams they hold open end, so the HTTP server can
	// then close at once.
	s.Close()
	srv.Close()
	<-errc
	return nil
}

func endpointURL(a net.Addr) string {
	host, port, _ := net.SplitHostPort(a.String())
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port) + Endpoint
}
