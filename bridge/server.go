package bridge

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/indusagi/induscode/bridge/mcpconfig"
	"github.com/indusagi/induscode/internal/childlog"
	"github.com/indusagi/induscode/internal/childproc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// pinnedProtocolVersion is the protocol version the bridge asks for. Asking
// for the SDK's newest (2026-07-28) first sends a server/discover probe, and
// a legacy stdio server that ignores unknown requests never answers it,
// which hangs Connect until its deadline. 2025-11-25 goes straight to
// initialize; servers that speak an older version still negotiate down.
const pinnedProtocolVersion = "2025-11-25"

// Restart backoff: the first restart after an exit is immediate, then each
// consecutive failure doubles the wait up to the cap, so a crashing server
// is not respawned in a tight loop by a model retrying its tool.
const (
	restartBackoffBase = time.Second
	restartBackoffMax  = 30 * time.Second
	// restartWaitLimit is the longest a call waits for a backoff to pass;
	// past it the call fails at once and says when to retry.
	restartWaitLimit = 2 * time.Second
)

var errDetached = errors.New("the server was detached")

// server is one configured MCP server and its current connection.
type server struct {
	fleet  *Fleet
	cfg    mcpconfig.Server
	log    *childlog.Log
	ctx    context.Context // ends when the server is detached
	cancel context.CancelFunc

	mu        sync.Mutex
	state     State
	link      *link
	lastErr   string
	restarts  int
	refreshes int
	failures  int       // consecutive failed connects
	downAt    time.Time // when the last connect failed or the session ended
	faults    []string
	dropped   int64               // stdout lines dropped by earlier links
	used      mcpconfig.Transport // the transport found by detection, once connected
	dialing   chan struct{}       // non-nil while a reconnect runs; closed at its end
}

// link is one live session with a server.
type link struct {
	srv     *server
	session *mcp.ClientSession
	proc    *process        // Stdio
	httpTr  *http.Transport // SSE, StreamableHTTP
	ctx     context.Context // ends at teardown
	cancel  context.CancelFunc
	ended   chan struct{} // closed when the session has ended
	endErr  error
	refresh chan struct{} // tools/list_changed arrived
	wg      sync.WaitGroup

	// notified counts tools/list_changed notifications; listedUpTo is
	// the count the latest finished re-listing started after. When they
	// are equal every notification has been answered by a listing, which
	// is how tests wait for a burst to settle instead of sleeping.
	notified, listedUpTo atomic.Int64

	mu       sync.Mutex
	closing  bool
	calls    map[*callState]struct{}
	progress map[string]*callState
	tokens   uint64
}

func newServer(f *Fleet, cfg mcpconfig.Server, log *childlog.Log) *server {
	ctx, cancel := context.WithCancel(f.ctx)
	return &server{fleet: f, cfg: cfg, log: log, ctx: ctx, cancel: cancel, state: Connecting}
}

func (s *server) startupTimeout() time.Duration {
	if s.cfg.StartupTimeout > 0 {
		return s.cfg.StartupTimeout
	}
	return s.fleet.opts.StartupTimeout
}

func (s *server) callTimeout() time.Duration {
	if s.cfg.CallTimeout > 0 {
		return s.cfg.CallTimeout
	}
	return s.fleet.opts.CallTimeout
}

// dial connects, handshakes and lists the tools, all within the startup
// timeout. ctx may end the attempt early (a caller gave up); so does
// detaching the server.
func (s *server) dial(ctx context.Context) (*link, []*mcp.Tool, []string, error) {
	timeout := s.startupTimeout()
	ctx, cancel := context.WithTimeoutCause(ctx, timeout, fmt.Errorf("it did not complete the MCP handshake and tool listing within %v (raise \"startupTimeout\" in its config if it is just slow)", timeout))
	defer cancel()
	stopOnDetach := context.AfterFunc(s.ctx, cancel)
	defer stopOnDetach()
	if s.cfg.DetectTransport && s.cfg.Transport == mcpconfig.StreamableHTTP {
		return s.dialDetect(ctx)
	}
	l, tools, faults, _, err := s.dialOver(ctx, s.cfg.Transport)
	return l, tools, faults, err
}

// dialDetect connects a server whose config gave a url and no type: over
// Streamable HTTP, and when the server answers that POST with 400, 404 or
// 405, over SSE at the same url. An error names both attempts.
func (s *server) dialDetect(ctx context.Context) (*link, []*mcp.Tool, []string, error) {
	l, tools, faults, status, err := s.dialOver(ctx, mcpconfig.StreamableHTTP)
	if err == nil {
		s.setUsed(mcpconfig.StreamableHTTP)
		return l, tools, faults, nil
	}
	if errors.Is(err, errDetached) || ctx.Err() != nil {
		return nil, nil, nil, err
	}
	if !sseFallbackStatus(status) {
		why := fmt.Sprintf("the POST was answered %d %s, not 400, 404 or 405", status, http.StatusText(status))
		if status == 0 {
			why = "no HTTP answer came back"
		}
		return nil, nil, nil, fmt.Errorf("over Streamable HTTP (tried first, as the config gives a url and no \"type\"): %v; SSE was not tried, as %s", err, why)
	}
	s.log.Printf("the Streamable HTTP POST to %s was answered %d %s; trying SSE", s.cfg.URL, status, http.StatusText(status))
	l, tools, faults, _, err2 := s.dialOver(ctx, mcpconfig.SSE)
	if err2 == nil {
		s.setUsed(mcpconfig.SSE)
		return l, tools, faults, nil
	}
	if errors.Is(err2, errDetached) {
		return nil, nil, nil, err2
	}
	return nil, nil, nil, fmt.Errorf("the config gives a url and no \"type\", so both transports were tried: Streamable HTTP, whose POST was answered %d %s; then SSE, where %v. Check the url, or set \"type\" to \"http\" or \"sse\"",
		status, http.StatusText(status), err2)
}

// setUsed records the transport a detected server connected over.
func (s *server) setUsed(t mcpconfig.Transport) {
	s.mu.Lock()
	s.used = t
	s.mu.Unlock()
}

// dialOver connects over transport tr. status is the HTTP status that
// answered the first POST, 0 when none did (or tr is Stdio).
func (s *server) dialOver(ctx context.Context, tr mcpconfig.Transport) (_ *link, _ []*mcp.Tool, _ []string, status int, _ error) {
	lctx, lcancel := context.WithCancel(s.ctx)
	l := &link{srv: s, ctx: lctx, cancel: lcancel, ended: make(chan struct{}), refresh: make(chan struct{}, 1),
		calls: make(map[*callState]struct{}), progress: make(map[string]*callState)}
	client := mcp.NewClient(&mcp.Implementation{Name: s.fleet.opts.ClientName, Version: s.fleet.opts.ClientVersion}, &mcp.ClientOptions{
		Logger:       slog.New(slog.NewTextHandler(s.log.Writer("sdk"), &slog.HandlerOptions{Level: slog.LevelWarn})),
		Capabilities: &mcp.ClientCapabilities{},
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			l.notified.Add(1)
			select {
			case l.refresh <- struct{}{}:
			default: // a refresh is already due; a burst becomes one
			}
		},
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			l.progressed(req.Params)
		},
	})
	var transport mcp.Transport
	var ht *headerTransport
	switch tr {
	case mcpconfig.Stdio:
		transport = &stdioTransport{cfg: s.cfg, dir: s.fleet.opts.Dir, log: s.log}
	case mcpconfig.SSE, mcpconfig.StreamableHTTP:
		var hc *http.Client
		hc, ht, l.httpTr = newHTTPClient(s.cfg.Headers)
		transport = httpTransport(s.cfg, tr, hc)
	default:
		lcancel()
		return nil, nil, nil, 0, fmt.Errorf("unknown transport %v", tr)
	}
	posted := func() int {
		if ht == nil {
			return 0
		}
		return int(ht.firstPost.Load())
	}
	cs, err := client.Connect(ctx, transport, &mcp.ClientSessionOptions{ProtocolVersion: pinnedProtocolVersion})
	if st, ok := transport.(*stdioTransport); ok {
		l.proc = st.proc
	}
	if err != nil {
		l.teardown()
		return nil, nil, nil, posted(), s.explain(ctx, "connecting", err, l)
	}
	l.session = cs
	tools, faults, err := listTools(ctx, cs)
	if err != nil {
		l.teardown()
		return nil, nil, nil, posted(), s.explain(ctx, "listing tools", err, l)
	}
	l.wg.Add(2)
	go l.watch()
	go l.refresher()
	return l, tools, faults, posted(), nil
}

// explain turns a connect failure into a message that says what happened
// and what the server printed.
func (s *server) explain(ctx context.Context, step string, err error, l *link) error {
	if cause := context.Cause(ctx); cause != nil && ctx.Err() != nil {
		if errors.Is(cause, context.Canceled) && s.ctx.Err() != nil {
			return errDetached
		}
		err = cause
	}
	msg := fmt.Sprintf("%s failed: %v", step, err)
	if l.proc != nil {
		if st := l.proc.exitStatus(); st != "" {
			msg += " (the process ended: " + st + ")"
		}
	}
	return errors.New(msg + s.log.StderrHint(nil))
}

// ready returns a live link, reconnecting a server whose session ended or
// whose last attempt failed (after its backoff).
func (s *server) ready(ctx context.Context) (*link, error) {
	s.mu.Lock()
	for {
		switch s.state {
		case Ready:
			l := s.link
			select {
			case <-l.ended:
				s.markDown(l, "the session ended")
				continue
			default:
			}
			s.mu.Unlock()
			return l, nil
		case Detached:
			s.mu.Unlock()
			return nil, errDetached
		case Connecting:
			ch := s.dialing
			s.mu.Unlock()
			if ch == nil { // the first mount is still running
				return nil, fmt.Errorf("MCP server %q is still starting; retry in a moment", s.cfg.Name)
			}
			select {
			case <-ch:
			case <-ctx.Done():
				return nil, context.Cause(ctx)
			}
			s.mu.Lock()
		case Exited, Failed:
			wait := s.backoff() - time.Since(s.downAt)
			if wait > restartWaitLimit {
				err := fmt.Errorf("MCP server %q is down (%s) and failed to restart %d time(s) in a row; the next restart is allowed in %v. Retry then, or check the server's log",
					s.cfg.Name, s.lastErr, s.failures, wait.Round(time.Second))
				s.mu.Unlock()
				return nil, err
			}
			if wait > 0 {
				s.mu.Unlock()
				select {
				case <-time.After(wait):
				case <-ctx.Done():
					return nil, context.Cause(ctx)
				}
				s.mu.Lock()
				continue
			}
			if err := s.reconnect(); err != nil {
				s.mu.Unlock()
				return nil, err
			}
		}
	}
}

// reconnect dials a new link; s.mu is held on entry and on return.
func (s *server) reconnect() error {
	s.state = Connecting
	ch := make(chan struct{})
	s.dialing = ch
	old := s.link
	s.link = nil
	s.mu.Unlock()
	if old != nil {
		// Its session has ended; release what is left of it.
		old.teardown()
		s.mu.Lock()
		s.dropped += old.droppedLines()
		s.mu.Unlock()
	}
	s.log.Printf("reconnecting")
	l, tools, faults, err := s.dial(s.ctx)
	s.mu.Lock()
	s.dialing = nil
	defer close(ch)
	if s.state == Detached {
		if l != nil {
			s.mu.Unlock()
			l.teardown()
			s.mu.Lock()
		}
		return errDetached
	}
	if err != nil {
		s.failures++
		s.downAt = time.Now()
		s.lastErr = err.Error()
		s.state = Failed
		s.log.Printf("reconnect failed: %v", err)
		return fmt.Errorf("MCP server %q could not be restarted: %v", s.cfg.Name, err)
	}
	s.restarts++
	s.failures = 0
	s.link = l
	s.state = Ready
	s.mu.Unlock()
	s.fleet.setTools(s, tools, faults, true)
	s.mu.Lock()
	return nil
}

func (s *server) backoff() time.Duration {
	if s.failures == 0 {
		return 0
	}
	d := restartBackoffBase << min(s.failures-1, 16)
	return min(d, restartBackoffMax)
}

// markDown records that link l's session ended; s.mu is held.
func (s *server) markDown(l *link, why string) {
	if s.link != l || s.state != Ready {
		return
	}
	s.state = Exited
	s.downAt = time.Now()
	why = downCause(l, why)
	s.lastErr = why + s.log.StderrHint(nil)
	s.log.Printf("session ended: %s", why)
}

// settleDown refreshes the account of link l's end once its process is
// done: the session can end (stdout closed) before the exit status is
// known and before the last stderr lines are read, and those belong in
// the message; s.mu is held.
func (s *server) settleDown(l *link) {
	if s.link == l && s.state == Exited {
		s.lastErr = downCause(l, "the session ended") + s.log.StderrHint(nil)
	}
}

// downCause is why link l's session ended: the process's exit status when
// it is known, else the session's error, else why.
func downCause(l *link, why string) string {
	if l.proc != nil {
		if st := l.proc.exitStatus(); st != "" {
			return "the process ended: " + st
		}
	} else if l.endErr != nil {
		return l.endErr.Error()
	}
	return why
}

// shutdown detaches the server: in-flight calls are cancelled and the
// connection is torn down; it returns when the process is gone.
func (s *server) shutdown() {
	s.mu.Lock()
	s.state = Detached
	l, ch := s.link, s.dialing
	s.link = nil
	s.mu.Unlock()
	s.cancel()
	if ch != nil {
		<-ch
	}
	if l != nil {
		l.teardown()
		s.mu.Lock()
		s.dropped += l.droppedLines()
		s.mu.Unlock()
	}
	s.log.Printf("detached")
}

func (s *server) status() ServerStatus {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := ServerStatus{Name: s.cfg.Name, Transport: s.cfg.Transport, TransportDetected: s.cfg.DetectTransport,
		State: s.state, Restarts: s.restarts,
		Refreshes: s.refreshes, LastError: s.lastErr, Faults: append([]string(nil), s.faults...),
		DroppedLines: s.dropped, Log: s.log.Path(), Source: s.cfg.Source}
	if s.used != 0 {
		st.Transport = s.used
	}
	if s.state == Ready && s.link != nil {
		select {
		case <-s.link.ended:
			s.markDown(s.link, "the session ended")
			st.State, st.LastError = s.state, s.lastErr
		default:
		}
	}
	if l := s.link; l != nil {
		st.DroppedLines += l.droppedLines()
		if l.proc != nil && l.proc.exitStatus() == "" {
			st.PID = l.proc.pid()
		}
	}
	return st
}

// watch waits for the session to end and records it.
func (l *link) watch() {
	defer l.wg.Done()
	l.endErr = l.session.Wait()
	if l.proc != nil {
		// stdout usually closes a moment before the exit is reaped; wait
		// for it so the status can say how the process ended.
		select {
		case <-l.proc.child.Reaped():
		case <-time.After(childproc.DrainGrace):
		}
	}
	close(l.ended)
	l.mu.Lock()
	closing := l.closing
	l.mu.Unlock()
	if closing {
		return
	}
	s := l.srv
	s.mu.Lock()
	s.markDown(l, "the session ended")
	s.mu.Unlock()
}

// teardown ends the link: calls are cancelled, the session closed, the
// process stopped, and the link's goroutines waited for.
func (l *link) teardown() {
	l.mu.Lock()
	l.closing = true
	for c := range l.calls {
		c.cancel(errDetached)
	}
	l.mu.Unlock()
	l.cancel()
	if l.session != nil {
		_ = l.session.Close()
	}
	if l.proc != nil {
		l.proc.stop()
	}
	l.wg.Wait()
	if l.httpTr != nil {
		l.httpTr.CloseIdleConnections()
	}
}

func (l *link) droppedLines() int64 {
	if l.proc == nil {
		return 0
	}
	return l.proc.stdout.dropped.Load()
}
