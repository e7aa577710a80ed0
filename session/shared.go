package session

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/indusagi/induscode/bridge"
	"github.com/indusagi/induscode/bridge/mcpconfig"
	"github.com/indusagi/induscode/deck"
	"github.com/indusagi/induscode/tool"
)

// Fleet is the MCP servers a host shares among the sessions it opens
// (serve): made by [StartFleet], handed to every [Open] in Options.Fleet,
// closed by the host. A server whose tool list is cached (Options.UseCache)
// is listed from the cache at once and started on the first call of one
// of its tools, once for all sessions; the others start in the
// background. A call that arrives while its server is still starting
// waits for it ([Fleet.Await]).
type Fleet struct {
	bf      *bridge.Fleet
	dir     string
	opts    Options
	mounted chan struct{}

	mu       sync.Mutex
	cached   map[string]deferredServer // listed from the cache until attached
	starting map[string]chan struct{}  // attaching now; closed once ready or failed
	watchers map[*func()]struct{}
	closed   bool
	wg       sync.WaitGroup // the background attach
}

// StartFleet starts the servers configured for opts without waiting for
// them: it returns a fleet whose uncached servers connect in the
// background (sessions that share it see their tools arrive through
// [Session.OnToolsChanged]) and whose cached servers wait for their first
// call. It returns nil when no server is configured. Problems go to
// opts.Warn.
func StartFleet(opts Options) (*Fleet, error) {
	dir, err := workDir(opts.Dir)
	if err != nil {
		return nil, err
	}
	servers, err := Servers(opts)
	if err != nil || len(servers) == 0 {
		return nil, err
	}
	f := &Fleet{dir: dir, opts: opts, mounted: make(chan struct{}), starting: make(map[string]chan struct{})}
	f.opts.Dir = dir
	f.bf = bridge.Mount(context.Background(), nil, FleetOptions(dir, opts))
	var now []mcpconfig.Server
	for _, cfg := range servers {
		if specs, ok := loadCached(dir, cfg, time.Now()); ok && opts.UseCache {
			if f.cached == nil {
				f.cached = make(map[string]deferredServer)
			}
			f.cached[cfg.Name] = deferredServer{cfg: cfg, specs: specs}
			continue
		}
		now = append(now, cfg)
	}
	done := make(chan struct{})
	for _, cfg := range now {
		f.starting[cfg.Name] = done
	}
	f.wg.Add(1)
	go func() {
		defer f.wg.Done()
		defer close(f.mounted)
		if len(now) > 0 {
			f.bf.Attach(context.Background(), now...)
		}
		f.attached(now, done)
	}()
	return f, nil
}

// attached ends the start of servers: their waiters go on, and what went
// wrong is reported.
func (f *Fleet) attached(servers []mcpconfig.Server, done chan struct{}) {
	f.mu.Lock()
	cachedOnes := false
	for _, cfg := range servers {
		delete(f.starting, cfg.Name)
		if _, ok := f.cached[cfg.Name]; ok {
			delete(f.cached, cfg.Name)
			cachedOnes = true
		}
	}
	fns := make([]func(), 0, len(f.watchers))
	for k := range f.watchers {
		fns = append(fns, *k)
	}
	f.mu.Unlock()
	close(done)
	if cachedOnes {
		// Their cached tools are gone from the list: the server's own
		// (or, if it failed, none) stand in their place.
		for _, fn := range fns {
			fn()
		}
	}
	for _, w := range f.bf.Warnings() {
		warnTo(f.opts.Warn, "mcp: "+w)
	}
	reportFleet(f.bf, f.opts.Warn)
	saveCached(f.dir, f.bf, servers, f.opts.Warn)
}

// Bridge is the fleet of mounted servers underneath.
func (f *Fleet) Bridge() *bridge.Fleet {
	if f == nil {
		return nil
	}
	return f.bf
}

// Mounted is closed once every server started in the background is ready
// or has failed (cached servers wait for their first call).
func (f *Fleet) Mounted() <-chan struct{} { return f.mounted }

// Await waits while the server a grafted tool name belongs to is starting,
// for as long as its start-up may take, and reports whether it waited. A
// host asks before it answers "unknown tool" to a client that called a
// tool of a server not listed yet.
func (f *Fleet) Await(ctx context.Context, name string) bool {
	if f == nil || !strings.Contains(name, bridge.Separator) {
		return false
	}
	f.mu.Lock()
	var wait chan struct{}
	for server, done := range f.starting {
		if strings.HasPrefix(name, bridge.Qualify(server, "")) {
			wait = done
			break
		}
	}
	f.mu.Unlock()
	if wait == nil {
		return false
	}
	select {
	case <-wait:
	case <-ctx.Done():
	}
	return true
}

// start attaches a cached server on the first call of one of its tools;
// later calls, from any session, wait for that start. It returns the
// server's error when it did not come up.
func (f *Fleet) start(ctx context.Context, name string) error {
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return errors.New("the server is shutting down")
	}
	if done, ok := f.starting[name]; ok {
		f.mu.Unlock()
		select {
		case <-done:
		case <-ctx.Done():
			return ctx.Err()
		}
		return f.failure(name)
	}
	d, ok := f.cached[name]
	if !ok {
		f.mu.Unlock()
		return f.failure(name) // attached before
	}
	// Its cached tools stay listed until it is attached.
	done := make(chan struct{})
	f.starting[name] = done
	f.wg.Add(1)
	f.mu.Unlock()
	// The start belongs to the fleet, not to this call: a caller that
	// gives up leaves it to finish for the next one.
	go func() {
		defer f.wg.Done()
		f.bf.Attach(context.Background(), d.cfg)
		f.attached([]mcpconfig.Server{d.cfg}, done)
	}()
	select {
	case <-done:
	case <-ctx.Done():
		return ctx.Err()
	}
	return f.failure(name)
}

// failure is the error of a server that is attached and not ready.
func (f *Fleet) failure(name string) error {
	for _, st := range f.bf.Status() {
		if st.Name == name && st.State != bridge.Ready {
			return fmt.Errorf("it is %s: %s", st.State, st.LastError)
		}
	}
	return nil
}

// OnChange registers fn to run after the fleet's tools changed: a server
// came up, restarted or re-listed, or a cached server's tools gave way to
// its own. The returned function stops it.
func (f *Fleet) OnChange(fn func()) (stop func()) {
	key := &fn
	f.mu.Lock()
	if f.watchers == nil {
		f.watchers = make(map[*func()]struct{})
	}
	f.watchers[key] = struct{}{}
	f.mu.Unlock()
	stopBridge := f.bf.OnChange(fn)
	return func() {
		stopBridge()
		f.mu.Lock()
		delete(f.watchers, key)
		f.mu.Unlock()
	}
}

// lazyTools are the cached tools of the servers not attached yet, in
// server name order; those of a server that is starting stay listed until
// it is attached.
func (f *Fleet) lazyTools() []*lazyTool {
	f.mu.Lock()
	defer f.mu.Unlock()
	names := make([]string, 0, len(f.cached))
	for n := range f.cached {
		names = append(names, n)
	}
	slices.Sort(names)
	var out []*lazyTool
	for _, n := range names {
		for _, sp := range f.cached[n].specs {
			out = append(out, &lazyTool{shared: f, server: n, spec: sp})
		}
	}
	return out
}

// grafted returns the mounted tool with this name, or nil.
func (f *Fleet) grafted(name string) tool.Tool {
	for _, t := range f.bf.Tools() {
		if t.Spec().Name == name {
			return t
		}
	}
	return nil
}

// Close stops every server, waiting for starts under way to end first.
func (f *Fleet) Close() error {
	if f == nil {
		return nil
	}
	f.mu.Lock()
	f.closed = true
	f.mu.Unlock()
	err := f.bf.Close() // a start under way ends with its fleet
	f.wg.Wait()
	return err
}

// withShared grafts the cached tools of the host fleet's servers not
// attached yet; a name the fleet serves already is its server's own.
func (s *Session) withShared(d *deck.Deck) *deck.Deck {
	have := make(map[string]bool)
	for _, t := range d.Tools() {
		have[t.Spec().Name] = true
	}
	var lazy []tool.Tool
	for _, t := range s.shared.lazyTools() {
		if have[t.spec.Name] {
			continue
		}
		if ok, why := admitGraft(t, s.opts.Profile, s.opts.Tools); ok {
			lazy = append(lazy, t)
		} else {
			s.omitted = append(s.omitted, Omission{Name: t.spec.Name, Reason: why})
		}
	}
	out, err := d.With(lazy...)
	if err != nil {
		s.warn(fmt.Sprintf("mcp: %v", err))
	}
	return out
}
