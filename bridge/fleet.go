package bridge

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/indusagi/induscode/bridge/ledger"
	"github.com/indusagi/induscode/bridge/mcpconfig"
	"github.com/indusagi/induscode/internal/childlog"
	"github.com/indusagi/induscode/tool"
)

// Defaults of Options.
const (
	// DefaultStartupTimeout bounds connecting to one server: starting it,
	// the handshake and listing its tools. npx fetching a package on first
	// use is the slow case it allows for.
	DefaultStartupTimeout = 10 * time.Second
	// DefaultCallTimeout bounds a call between signs of life from the
	// server (its start, then each progress notification).
	DefaultCallTimeout = 60 * time.Second
	// DefaultMaxCallTimeout is the absolute bound on one call, however
	// much progress it reports.
	DefaultMaxCallTimeout = 10 * time.Minute
)

// maxParallelConnects bounds how many servers start at once: all of a
// normal fleet, without forking a hundred processes at one instant.
const maxParallelConnects = 16

// Options configure a fleet. The zero value works: stdio servers start in
// the current directory and nothing is written to disk.
type Options struct {
	// Dir is where stdio servers start unless their config says "cwd".
	Dir string
	// LedgerPath, when set, is the ledger log (normally
	// <workspace>/.indusvx/ledger.jsonl): it is replayed at mount and every
	// batch of events is appended and synced. The log records changes
	// only: a server whose tools are the same as the log says writes
	// nothing, and closing the fleet writes nothing.
	LedgerPath string
	// Configured names every server of the configuration, mounted by this
	// fleet or not (a command may mount only some of them). Tools the
	// ledger holds for a server not named here are retired when the
	// ledger is opened: the server was removed from the configuration.
	// nil means the configuration is not known and nothing is retired
	// for that reason; an empty, non-nil slice means no server is
	// configured.
	Configured []string
	// LogDir, when set, keeps each server's stderr in <LogDir>/<name>.log.
	LogDir string
	// StartupTimeout, CallTimeout and MaxCallTimeout default to the
	// Default* constants; a server's config may override the first two.
	StartupTimeout, CallTimeout, MaxCallTimeout time.Duration
	// ClientName and ClientVersion identify the bridge to servers.
	ClientName, ClientVersion string
	// MaxLedgerEntries bounds the ledger log: it grows by every change of
	// a server's tools and would grow without end. When a replayed log
	// holds more, it is cut to its newest half plus the enrollments still
	// live from before it. 0 means DefaultMaxLedgerEntries.
	MaxLedgerEntries int
}

// DefaultMaxLedgerEntries keeps replay within its 300 ms budget (the
// Replay100k benchmark, BENCHMARKS.md) while holding the history of
// hundreds of sessions.
const DefaultMaxLedgerEntries = 100_000

// Fleet is the set of mounted servers and the ledger of their tools. It is
// safe for concurrent use. Close it to stop the servers.
type Fleet struct {
	opts   Options
	ctx    context.Context
	cancel context.CancelFunc

	mu      sync.Mutex
	servers []*server // declaration order
	routes  map[string]route
	// caps holds the grafted tools of the servers mounted here, by ledger
	// key. The ledger also holds tools enrolled by earlier processes for
	// servers this one has not mounted; those are not callable here.
	caps   map[ledger.Key]*capability
	ledger ledger.Ledger
	file   *ledger.File
	saved  int // ledger entries already in the file
	// busy is set when another session holds the log: this one replayed
	// it read-only, and says so only if it has events of its own to keep.
	busy     error
	warnings []string
	closed   bool
	watchers map[*func()]struct{}
}

type route struct {
	srv  *server
	tool string
}

// Mount connects every server in parallel and grafts their tools. It always
// returns a fleet: a server that fails contributes no tools and shows its
// error in [Fleet.Status], and the others are unaffected. ctx bounds the
// connecting (each server also has its startup timeout).
func Mount(ctx context.Context, servers []mcpconfig.Server, opts Options) *Fleet {
	f := newFleet(opts)
	f.Attach(ctx, servers...)
	return f
}

func newFleet(opts Options) *Fleet {
	if opts.StartupTimeout <= 0 {
		opts.StartupTimeout = DefaultStartupTimeout
	}
	if opts.CallTimeout <= 0 {
		opts.CallTimeout = DefaultCallTimeout
	}
	if opts.MaxCallTimeout <= 0 {
		opts.MaxCallTimeout = DefaultMaxCallTimeout
	}
	if opts.ClientName == "" {
		opts.ClientName = "induscode"
	}
	if opts.ClientVersion == "" {
		opts.ClientVersion = "devel"
	}
	ctx, cancel := context.WithCancel(context.Background())
	f := &Fleet{opts: opts, ctx: ctx, cancel: cancel, routes: make(map[string]route),
		caps: make(map[ledger.Key]*capability), ledger: ledger.Empty()}
	if opts.LedgerPath != "" {
		f.openLedger()
	}
	return f
}

// openLedger replays the log. Its live tools stay live: servers that the
// configuration still names are compared with them when they mount, and
// only differences become events. Tools of servers that left the
// configuration are retired.
func (f *Fleet) openLedger() {
	file, entries, warnings, err := ledger.OpenFile(f.opts.LedgerPath)
	if errors.Is(err, ledger.ErrLocked) {
		// Another session of the workspace keeps the log. Its tools are
		// most likely this one's too: replay them, and say nothing
		// unless this session finds a change the log cannot take (see
		// commit), so that every command beside a running server does
		// not repeat it.
		// Its warnings (malformed lines) are the holder's to give.
		entries, _, err = ledger.ReadLog(f.opts.LedgerPath)
		if err == nil {
			f.busy = fmt.Errorf("ledger log %s: %w", f.opts.LedgerPath, ledger.ErrLocked)
			f.ledger = ledger.FromLog(entries)
			f.saved = f.ledger.Len()
			f.withdrawUnconfigured()
			return
		}
	}
	f.warnings = append(f.warnings, warnings...)
	if err != nil {
		f.warnings = append(f.warnings, fmt.Sprintf("%v; the ledger is kept in memory only", err))
		return
	}
	f.file = file
	f.ledger = ledger.FromLog(entries)
	f.saved = f.ledger.Len()
	f.compactLedger()
	f.withdrawUnconfigured()
}

// withdrawUnconfigured retires the tools of servers that left the
// configuration.
func (f *Fleet) withdrawUnconfigured() {
	if f.opts.Configured != nil {
		at := ledger.Now()
		l := f.ledger
		for _, c := range l.Counts() {
			if !slices.Contains(f.opts.Configured, c.Server) {
				l = l.WithdrawServer(c.Server, at)
			}
		}
		f.commit(l)
	}
}

// compactLedger cuts a log over the limit to its newest half, preceded by
// the enrollments still live from before it, so the cut log replays to the
// same live tools; what is lost is old history, not state.
func (f *Fleet) compactLedger() {
	limit := f.opts.MaxLedgerEntries
	if limit <= 0 {
		limit = DefaultMaxLedgerEntries
	}
	n := f.ledger.Len()
	if f.file == nil || n <= limit {
		return
	}
	keep := f.ledger.Compact(max(limit/2, 1))
	if err := f.file.Rewrite(keep); err != nil {
		f.warnings = append(f.warnings, fmt.Sprintf("compacting the ledger log: %v", err))
		return
	}
	f.ledger = ledger.FromLog(keep)
	f.saved = f.ledger.Len()
	f.warnings = append(f.warnings, fmt.Sprintf("ledger log %s held %d events; kept the newest %d and the %d older enrollments still live", f.file.Path(), n, max(limit/2, 1), len(keep)-max(limit/2, 1)))
}

// commit makes l the fleet's ledger and appends its new events to the log;
// f.mu is held (or the fleet is not shared yet).
func (f *Fleet) commit(l ledger.Ledger) {
	f.ledger = l
	if f.busy != nil && l.Len() > f.saved {
		f.warnings = append(f.warnings, fmt.Sprintf("%v; this session's changes to its tools are kept in memory only", f.busy))
		f.busy = nil // said once
	}
	if f.file == nil || l.Len() == f.saved {
		return
	}
	if err := f.file.Append(l.Since(f.saved)); err != nil {
		f.warnings = append(f.warnings, fmt.Sprintf("%v; later events are kept in memory only", err))
		f.file.Close()
		f.file = nil
		return
	}
	f.saved = l.Len()
}

// Attach mounts more servers into the fleet, connecting them in parallel,
// and returns their status. A name already in the fleet is refused (its
// status says so).
func (f *Fleet) Attach(ctx context.Context, servers ...mcpconfig.Server) []ServerStatus {
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return nil
	}
	var added []*server
	var refused []ServerStatus
	for _, cfg := range servers {
		if f.find(cfg.Name) != nil || slices.ContainsFunc(added, func(s *server) bool { return s.cfg.Name == cfg.Name }) {
			refused = append(refused, ServerStatus{Name: cfg.Name, Transport: cfg.Transport, State: Failed, Source: cfg.Source,
				LastError: "a server with this name is already attached; detach it first or rename this one"})
			continue
		}
		// The log file is named as the server's tools are (Qualify), so
		// "my.server" logs to my_server.log.
		log, err := childlog.Open(f.opts.LogDir, sanitize(cfg.Name), "bridge")
		if err != nil {
			f.warnings = append(f.warnings, fmt.Sprintf("server %q: cannot keep a log file (%v); its stderr is kept in memory only", cfg.Name, err))
		}
		s := newServer(f, cfg, log)
		added = append(added, s)
		f.servers = append(f.servers, s)
	}
	f.mu.Unlock()

	type dialed struct {
		l      *link
		tools  []*mcp.Tool
		faults []string
		err    error
	}
	results := make([]dialed, len(added))
	var wg sync.WaitGroup
	sem := make(chan struct{}, maxParallelConnects)
	for i, s := range added {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			dctx, cancel := context.WithCancel(s.ctx)
			defer cancel()
			stop := context.AfterFunc(ctx, cancel)
			defer stop()
			l, tools, faults, err := s.dial(dctx)
			results[i] = dialed{l, tools, faults, err}
		}()
	}
	wg.Wait()

	// Enroll in declaration order, so the ledger does not depend on which
	// server answered first.
	out := refused
	for i, s := range added {
		r := results[i]
		s.mu.Lock()
		switch {
		case s.state == Detached:
			s.mu.Unlock()
			if r.l != nil {
				r.l.teardown()
			}
		case r.err != nil:
			s.state, s.lastErr, s.failures, s.downAt = Failed, r.err.Error(), 1, time.Now()
			s.log.Printf("connect failed: %v", r.err)
			s.mu.Unlock()
		default:
			s.state, s.link = Ready, r.l
			s.mu.Unlock()
			f.setTools(s, r.tools, r.faults, false)
		}
		out = append(out, s.status())
	}
	return out
}

// find returns the attached server with this name; f.mu is held.
func (f *Fleet) find(name string) *server {
	for _, s := range f.servers {
		if s.cfg.Name == name {
			return s
		}
	}
	return nil
}

// route resolves a grafted tool name to its server and the server's name
// for the tool.
func (f *Fleet) route(exposed string) (*server, string, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	r, ok := f.routes[exposed]
	return r.srv, r.tool, ok
}

// Detach tears down the named servers (all of them when no name is given):
// their tools are withdrawn from the ledger, calls in flight are cancelled
// and their processes stopped. Unknown names are ignored. Detaching is a
// deliberate removal, so the ledger records it; [Fleet.Close] stops the
// servers without recording anything.
func (f *Fleet) Detach(names ...string) { f.detach(names, true) }

// detach tears down the named servers (all when names is empty), retiring
// their tools from the ledger when withdraw is set.
func (f *Fleet) detach(names []string, withdraw bool) {
	f.mu.Lock()
	var gone []*server
	keep := f.servers[:0:0]
	for _, s := range f.servers {
		if len(names) == 0 || slices.Contains(names, s.cfg.Name) {
			gone = append(gone, s)
		} else {
			keep = append(keep, s)
		}
	}
	f.servers = keep
	at := ledger.Now()
	l := f.ledger
	for _, s := range gone {
		if withdraw {
			l = l.WithdrawServer(s.cfg.Name, at)
		}
		for name, r := range f.routes {
			if r.srv == s {
				delete(f.routes, name)
			}
		}
		for k, c := range f.caps {
			if c.server == s.cfg.Name {
				delete(f.caps, k)
			}
		}
	}
	f.commit(l)
	f.mu.Unlock()
	if len(gone) > 0 {
		f.changed()
	}

	var wg sync.WaitGroup
	for _, s := range gone {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.shutdown()
			s.log.Close()
		}()
	}
	wg.Wait()
}

// Close stops every server and closes the ledger log. It records nothing:
// the tools stay live in the log, and the next fleet that mounts the same
// servers with the same tools writes nothing either. It is idempotent.
func (f *Fleet) Close() error {
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return nil
	}
	f.mu.Unlock()
	f.detach(nil, false)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed = true
	f.cancel()
	var err error
	if f.file != nil {
		err = f.file.Close()
		f.file = nil
	}
	return err
}

// Tools returns the grafted tools of the servers mounted by this fleet, in
// ledger order (servers in declaration order, each server's tools in its
// order, later additions after). Tools the ledger log holds for servers
// this fleet has not mounted are not among them.
func (f *Fleet) Tools() []tool.Tool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.toolsLocked()
}

// toolsLocked is Tools; f.mu is held.
func (f *Fleet) toolsLocked() []tool.Tool {
	var out []tool.Tool
	for _, e := range f.ledger.Snapshot().Entries() {
		if c, ok := f.caps[e.Key]; ok {
			out = append(out, c)
		}
	}
	return out
}

// Status returns the health of every attached server, in declaration order.
func (f *Fleet) Status() []ServerStatus {
	f.mu.Lock()
	servers := slices.Clone(f.servers)
	counts := make(map[string]int)
	for _, c := range f.caps {
		counts[c.server]++
	}
	f.mu.Unlock()
	out := make([]ServerStatus, len(servers))
	for i, s := range servers {
		out[i] = s.status()
		out[i].Tools = counts[s.cfg.Name]
	}
	return out
}

// Ledger returns the current ledger value. Besides the tools of the
// servers mounted here it holds those an earlier process enrolled for
// servers this fleet has not mounted.
func (f *Fleet) Ledger() ledger.Ledger {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.ledger
}

// ToolNames returns the names of the grafted tools, as [Fleet.Tools]
// orders them.
func (f *Fleet) ToolNames() []string {
	var names []string
	for _, t := range f.Tools() {
		names = append(names, t.Spec().Name)
	}
	return names
}

// ToolCounts returns the grafted tool count per server, in the order of
// [Fleet.Tools].
func (f *Fleet) ToolCounts() []ledger.ServerCount {
	var out []ledger.ServerCount
	at := make(map[string]int)
	for _, t := range f.Tools() {
		server := t.(*capability).server
		i, ok := at[server]
		if !ok {
			i = len(out)
			at[server] = i
			out = append(out, ledger.ServerCount{Server: server})
		}
		out[i].Count++
	}
	return out
}

// OnChange registers fn to be called whenever the set of grafted tools
// changes: a server's tools are enrolled or retired (at mount, after a
// restart, after tools/list_changed) or a server is detached. fn runs on
// the goroutine that made the change, with no fleet lock held, so it may
// call [Fleet.Tools]; it must not block for long. The returned function
// stops the notifications; it is safe to call more than once.
func (f *Fleet) OnChange(fn func()) (stop func()) {
	key := &fn
	f.mu.Lock()
	if f.watchers == nil {
		f.watchers = make(map[*func()]struct{})
	}
	f.watchers[key] = struct{}{}
	f.mu.Unlock()
	return func() {
		f.mu.Lock()
		delete(f.watchers, key)
		f.mu.Unlock()
	}
}

// changed calls the OnChange functions; f.mu must not be held.
func (f *Fleet) changed() {
	f.mu.Lock()
	fns := make([]func(), 0, len(f.watchers))
	for k := range f.watchers {
		fns = append(fns, *k)
	}
	f.mu.Unlock()
	for _, fn := range fns {
		fn()
	}
}

// Warnings returns problems with the ledger log and log files; none of
// them stops the fleet.
func (f *Fleet) Warnings() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.warnings)
}
