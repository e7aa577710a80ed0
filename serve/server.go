package serve

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/indusagi/induscode/bridge"
	"github.com/indusagi/induscode/deck"
	"github.com/indusagi/induscode/internal/procs"
	"github.com/indusagi/induscode/session"
	"github.com/indusagi/induscode/tool"
)

// Options configure a Server.
type Options struct {
	// Session is what every MCP session's deck session is opened with
	// (directory, profile, --tools, MCP configs). Its Fleet is ignored: the
	// server mounts one fleet for all sessions.
	Session session.Options
	// Version is the server version told to clients.
	Version string
	// Log receives what the server reports (sessions that failed to open,
	// MCP servers that failed); nil means slog.Default(). It never sees
	// tokens, environment values or request headers.
	Log *slog.Logger
	// AdaptGC lets the server set the process's GC target by load: Go's
	// default while calls come one at a time, eight times the headroom
	// while they overlap (see loadshape.go for the measurements). The
	// target is process-wide: leave this off when the server shares its
	// process with other work, or when GOGC is set.
	AdaptGC bool
	// AdaptProcs lets the server set GOMAXPROCS by load: one processor
	// while calls come one at a time, so that a call's goroutine handoffs
	// stay on one thread; Go's default while calls overlap, and while a
	// large tree walk (grep, find) runs. Close gives the process its
	// default back. Process-wide too: leave it off when the server shares
	// its process, or when GOMAXPROCS is set. Only one Server of a process
	// may adapt the runtime at a time; New refuses a second.
	AdaptProcs bool
	// Instructions are what the initialize reply tells the client's model
	// about the tools served; "" means the deck's own, which speak of its
	// file, search and shell tools. A host that serves other tools
	// (Session.Extra alone) says what they are.
	Instructions string
}

// adapting is set while a Server of the process adapts the runtime.
var adapting atomic.Bool

// Server is a deck served over MCP. Make one with [New], run it with
// [Server.RunStdio] or [Server.RunHTTP], and Close it to end every
// session and stop the grafted servers.
type Server struct {
	opts    Options
	log     *slog.Logger
	mcp     *mcp.Server
	fleet   *session.Fleet // nil without MCP servers
	mounted <-chan struct{}
	catalog *session.Session // the tool list (session.Catalog); never runs a call
	stop    func()
	load    *loadShape // nil unless Options.AdaptGC or AdaptProcs
	// pollAfter is HTTPOptions.PollAfter of the event-stream handler.
	pollAfter atomic.Int64
	ungovern  func() // removes load's lift as the process's governor

	syncMu sync.Mutex
	listed map[string]tool.Spec // what the MCP server lists now

	mu       sync.Mutex
	sessions map[*mcp.ServerSession]*opened
	closed   bool
	wg       sync.WaitGroup // session watchers
}

// opened is the deck session of one MCP session, opened once.
type opened struct {
	once sync.Once
	s    *session.Session
	err  error
}

// ErrClosed is returned for calls that arrive after the server was closed.
var ErrClosed = errors.New("the server is shutting down")

// New builds the server: it starts mounting the configured MCP servers in
// the background and lists the deck's own tools at once. It fails only on
// options the caller must fix (see session.OptionError) or a deck that
// cannot be provisioned.
func New(opts Options) (_ *Server, err error) {
	if opts.AdaptGC || opts.AdaptProcs {
		if !adapting.CompareAndSwap(false, true) {
			return nil, errors.New("serve: another Server of this process adapts the runtime already (AdaptGC, AdaptProcs): only one may, or the two would set GOGC and GOMAXPROCS against each other")
		}
		defer func() {
			if err != nil {
				adapting.Store(false)
			}
		}()
	}
	s := &Server{opts: opts, log: opts.Log, listed: make(map[string]tool.Spec), sessions: make(map[*mcp.ServerSession]*opened)}
	if s.log == nil {
		s.log = slog.Default()
	}
	sopts := opts.Session
	if sopts.Warn == nil {
		sopts.Warn = func(msg string) { s.log.Warn(msg) }
	}
	sopts.Name = "" // a named session belongs to one client, not to all
	var done <-chan struct{}
	if !sopts.NoTools && !sopts.NoMCP {
		// Servers whose tool list is cached are listed at once and start
		// on their first call; the others start in the background.
		sopts.UseCache = true
		fleet, err := session.StartFleet(sopts)
		if err != nil {
			return nil, err
		}
		if fleet != nil {
			s.fleet, done = fleet, fleet.Mounted()
		}
	}
	if done == nil {
		c := make(chan struct{})
		close(c)
		done = c
	}
	s.mounted = done
	sopts.Fleet = s.fleet
	if s.fleet == nil {
		sopts.NoMCP = true
	}
	s.opts.Session = sopts

	// The tool list without a session: no client has opened one yet.
	catalog, err := session.Catalog(context.Background(), sopts)
	if err != nil {
		if s.fleet != nil {
			s.fleet.Close()
		}
		return nil, err
	}
	s.catalog = catalog
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: "induscode", Title: "induscode capability deck", Version: opts.Version}, &mcp.ServerOptions{
		Instructions: cmp.Or(opts.Instructions, instructions),
		Logger:       s.log,
		// Advertise tools (with list_changed) even before any is listed:
		// grafted servers may bring the first ones.
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: true}, Logging: &mcp.LoggingCapabilities{}},
	})
	s.stop = catalog.OnToolsChanged(func() { s.sync(true) })
	s.sync(false)
	s.mcp.AddReceivingMiddleware(s.awaitStarting)
	if opts.AdaptGC || opts.AdaptProcs {
		var gc func(int)
		var setter func(bool)
		if opts.AdaptGC {
			gc = setGCPercent
		}
		if opts.AdaptProcs {
			setter = setProcs
		}
		s.load = newLoadShape(gc, setter)
		if opts.AdaptProcs {
			s.ungovern = procs.Govern(s.load.lift)
		}
	}
	return s, nil
}

// instructions tell a client's model how the deck's tools fit together.
const instructions = "induscode: file, search, shell and planning tools for one workspace. " +
	"Read a file before you edit or overwrite it (edits of unread or changed files are refused). " +
	"Prefer read, grep, find and ls over shell equivalents; run servers and watchers with the process tool. " +
	"Tools named SERVER__TOOL come from other MCP servers this deck has grafted."

// MCP returns the underlying MCP server, for hosts that run their own
// transport.
func (s *Server) MCP() *mcp.Server { return s.mcp }

// Mounted is closed once every configured MCP server is ready or has
// failed to start.
func (s *Server) Mounted() <-chan struct{} { return s.mounted }

// Fleet returns the shared fleet of grafted servers, or nil.
func (s *Server) Fleet() *bridge.Fleet { return s.fleet.Bridge() }

// awaitStarting holds a call of a tool not listed yet while the server it
// belongs to is starting, for as long as its start-up may take: a client
// that calls at once (a one-shot CLI) then gets the tool, not "unknown
// tool".
func (s *Server) awaitStarting(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if p, ok := req.GetParams().(*mcp.CallToolParamsRaw); ok && method == "tools/call" && s.fleet != nil {
			s.syncMu.Lock()
			_, listed := s.listed[p.Name]
			s.syncMu.Unlock()
			if !listed && s.fleet.Await(ctx, p.Name) {
				s.sync(false)
			}
		}
		return next(ctx, method, req)
	}
}

// sync makes the MCP server's tool list match the deck's: tools that went
// away are removed, new and changed ones added. The SDK tells connected
// clients with notifications/tools/list_changed. With regraft (the fleet
// changed: a server came up, restarted or re-listed) the grafted tools are
// announced again even when their specs are the same, since a restarted
// server is a new process whose tools the client should look at anew.
func (s *Server) sync(regraft bool) {
	s.syncMu.Lock()
	defer s.syncMu.Unlock()
	want := make(map[string]tool.Spec)
	var order []tool.Spec
	for _, t := range s.catalog.Tools() {
		sp := t.Spec()
		if _, dup := want[sp.Name]; dup {
			continue
		}
		want[sp.Name] = sp
		order = append(order, sp)
	}
	var gone []string
	for name := range s.listed {
		if _, ok := want[name]; !ok {
			gone = append(gone, name)
		}
	}
	if len(gone) > 0 {
		slices.Sort(gone)
		s.mcp.RemoveTools(gone...)
		for _, name := range gone {
			delete(s.listed, name)
		}
	}
	for _, sp := range order {
		if old, ok := s.listed[sp.Name]; ok && tool.SameSpec(old, sp) && !(regraft && !deck.Has(sp.Name)) {
			continue
		}
		s.mcp.AddTool(mcpTool(sp), s.handler(sp.Name, len(sp.OutputSchema) > 0))
		s.listed[sp.Name] = sp
	}
}

// handler runs the named tool in the deck session of the calling MCP
// session. Cancellation of the request cancels the call; a progress token
// turns the tool's progress reports into notifications/progress. schema
// says whether the tool declares an output schema (see mcpResult).
func (s *Server) handler(name string, schema bool) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		ss := req.Session
		if req.Extra != nil && isStateless(req.Extra.Header) {
			// A stateless HTTP request's MCP session lasts as long as the
			// request; its calls share the server's one stateless deck
			// session (nil: never watched, closed with the server).
			ss = nil
		}
		ds, err := s.sessionFor(ss)
		if err != nil {
			return mcpResult(tool.Errorf("%s cannot run: %v", name, err), schema), nil
		}
		if tok := req.Params.GetProgressToken(); tok != nil && req.Session != nil {
			ctx = tool.WithProgress(ctx, progressTo(ctx, req.Session, tok))
		}
		if s.load != nil {
			s.load.enter()
			defer s.load.exit()
		}
		if after := time.Duration(s.pollAfter.Load()); after > 0 && req.Extra != nil && req.Extra.CloseSSEStream != nil {
			poll := time.AfterFunc(after, func() { req.Extra.CloseSSEStream(mcp.CloseSSEStreamArgs{RetryAfter: pollRetry}) })
			defer poll.Stop()
		}
		return mcpResult(ds.Run(ctx, name, req.Params.Arguments), schema), nil
	}
}

// progressTo sends progress reports of one call as notifications. MCP
// wants the value to increase; reports that would not are dropped.
func progressTo(ctx context.Context, ss *mcp.ServerSession, token any) tool.Progress {
	var (
		mu   sync.Mutex
		last = -1.0
	)
	return func(done, total float64, message string) {
		mu.Lock()
		if done <= last {
			mu.Unlock()
			return
		}
		last = done
		mu.Unlock()
		_ = ss.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: done, Total: total, Message: message})
	}
}

// sessionFor returns the deck session of an MCP session, opening it on
// first use. It is closed when the MCP session ends.
func (s *Server) sessionFor(ss *mcp.ServerSession) (*session.Session, error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, ErrClosed
	}
	o, ok := s.sessions[ss]
	if !ok {
		o = &opened{}
		s.sessions[ss] = o
		if ss != nil {
			s.wg.Add(1)
			go s.watch(ss)
		}
	}
	s.mu.Unlock()
	o.once.Do(func() {
		o.s, o.err = session.Open(context.Background(), s.opts.Session)
		if o.err != nil {
			s.log.Error("opening a deck session failed", "err", o.err)
		}
	})
	return o.s, o.err
}

// watch closes the deck session of ss when the MCP session ends: the
// client closed it, its HTTP session expired, or stdin reached its end.
func (s *Server) watch(ss *mcp.ServerSession) {
	defer s.wg.Done()
	_ = ss.Wait()
	s.mu.Lock()
	o := s.sessions[ss]
	delete(s.sessions, ss)
	s.mu.Unlock()
	if o != nil {
		o.once.Do(func() { o.err = ErrClosed }) // a late first call opens nothing
		if o.s != nil {
			if err := o.s.Close(); err != nil {
				s.log.Warn("closing a deck session", "err", err)
			}
		}
	}
}

// openSessions is the number of MCP sessions connected now.
func (s *Server) openSessions() int {
	n := 0
	for range s.mcp.Sessions() {
		n++
	}
	return n
}

// Sessions is the number of deck sessions open now.
func (s *Server) Sessions() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.sessions)
}

// Close ends every MCP session and its deck session (stopping every
// process they started), then the grafted servers. It is idempotent.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	open := make([]*opened, 0, len(s.sessions))
	for _, o := range s.sessions {
		open = append(open, o)
	}
	s.mu.Unlock()
	var errs []error
	// Deck sessions first: their processes die and calls in flight
	// return, so the MCP sessions can then close without waiting on them.
	for _, o := range open {
		o.once.Do(func() { o.err = ErrClosed })
		if o.s != nil {
			errs = append(errs, o.s.Close())
		}
	}
	if s.fleet != nil {
		errs = append(errs, s.fleet.Close())
		<-s.mounted // a mount still under way ends with the fleet
	}
	for ss := range s.mcp.Sessions() {
		_ = ss.Close()
	}
	s.stop()
	errs = append(errs, s.catalog.Close())
	s.wg.Wait()
	if s.ungovern != nil {
		s.ungovern()
	}
	if s.load != nil {
		s.load.close()
		adapting.Store(false)
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("serve: closing: %w", err)
	}
	return nil
}
