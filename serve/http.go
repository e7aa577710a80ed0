package serve

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
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
)

// HTTPOptions configure serving over Streamable HTTP.
type HTTPOptions struct {
	// Addr is host:port to listen on; "" means DefaultAddr.
	Addr string
	// Token, when set, is required of every request as
	// "Authorization: Bearer <token>". A non-loopback Addr needs one.
	Token string
	// SessionTimeout is DefaultSessionTimeout when 0; negative means none.
	SessionTimeout time.Duration
	// MaxBody is DefaultMaxBody when 0.
	MaxBody int64
	// EventStreams answers each POST with an event stream instead of one
	// JSON body. The notifications of a call (progress) then travel on the
	// call's own stream, and a client whose connection drops in the middle
	// of a long call reconnects with Last-Event-ID and gets the rest. Off by
	// default: one JSON body per call costs the server about a fifth less
	// (no event framing, flushes or resumption store), and the SDK clients
	// still get progress live, on the stream they open with GET.
	EventStreams bool
}

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
		h = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp }, &mcp.StreamableHTTPOptions{
			SessionTimeout:      timeout,
			MaxRequestBodyBytes: maxBody,
			Logger:              s.log,
			// Resumable streams: a client whose event stream drops in the
			// middle of a long call reconnects with Last-Event-ID and gets
			// the rest (progress, the result) instead of losing the call.
			// The store keeps the SDK's default of 10 MiB of recent events.
			EventStore: mcp.NewMemoryEventStore(nil),
		})
	} else {
		h = newJSONHTTP(s.mcp, s.log, timeout)
	}
	mux := http.NewServeMux()
	mux.Handle(Endpoint, guard(maxBody, h))
	var root http.Handler = mux
	if o.Token != "" {
		root = requireToken(o.Token, mux)
	}
	return root
}

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

// guard refuses what must not reach the deck and bounds request bodies
// to maxBody:
//   - a Host beyond loopback on a loopback listener: DNS rebinding, a page
//     on another site that resolved its own name to 127.0.0.1;
//   - an Origin of another site: a browser sends one, and a page on
//     evil.example must not drive a local deck (clients that are not
//     browsers send none).
func guard(maxBody int64, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok && isLoopbackAddr(local.String()) && !isLoopbackAddr(r.Host) {
			http.Error(w, fmt.Sprintf("Forbidden: invalid Host header %q", r.Host), http.StatusForbidden)
			return
		}
		if origin := r.Header.Get("Origin"); origin != "" && !sameSite(origin, r.Host) {
			http.Error(w, fmt.Sprintf("Forbidden: Origin %q may not use this server", origin), http.StatusForbidden)
			return
		}
		if r.Body != nil {
			r.Body = http.MaxBytesReader(w, r.Body, maxBody)
		}
		next.ServeHTTP(w, r)
	})
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

// ServeHTTP listens on o.Addr and serves until ctx ends; then every
// session is closed (their processes stopped, the grafted servers torn
// down) and it returns nil. ready, when set, is called with the endpoint
// URL once the port is bound. On an address beyond loopback the sessions'
// webfetch refuses private, loopback and link-local addresses.
func (s *Server) ServeHTTP(ctx context.Context, o HTTPOptions, ready func(url string)) error {
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
