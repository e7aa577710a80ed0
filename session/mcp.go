package session

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/indusagi/induscode/bridge"
	"github.com/indusagi/induscode/bridge/mcpconfig"
	"github.com/indusagi/induscode/deck"
	"github.com/indusagi/induscode/tool"
	"github.com/indusagi/induscode/workspace"
)

// Configured returns the MCP servers configured for opts: those of the
// opts.MCP paths in order, else those discovered for the workspace, with
// the workspace's own configs only once approved. Problems with the
// configuration go to opts.Warn.
func Configured(opts Options) ([]mcpconfig.Server, error) {
	dir, err := workDir(opts.Dir)
	if err != nil {
		return nil, err
	}
	servers, warnings := mcpconfig.Loader{}.LoadAll(opts.MCP, dir)
	for _, w := range warnings {
		warnTo(opts.Warn, "mcp: "+w.String())
	}
	if len(opts.MCP) == 0 {
		servers = untrusted(opts, dir, servers)
	}
	return servers, nil
}

// Servers returns the configured servers that opts.Mount starts.
func Servers(opts Options) ([]mcpconfig.Server, error) {
	if opts.Mount == MountNone {
		return nil, nil
	}
	servers, err := Configured(opts)
	if err != nil || opts.Mount == MountAll {
		return servers, err
	}
	kept := servers[:0:0]
	for _, s := range servers {
		if slices.Contains(opts.Servers, s.Name) {
			kept = append(kept, s)
		}
	}
	return kept, nil
}

// FleetOptions are the bridge options of a fleet for the workspace dir:
// its ledger log and server logs live in the workspace's state folder, and
// the ledger learns which servers the workspace configures, so that it
// retires the tools of a server removed from the configuration (and of no
// other: a command that mounts only some servers changes nothing for the
// rest).
func FleetOptions(dir string, opts Options) bridge.Options {
	l := workspace.At(dir)
	return bridge.Options{
		Dir:           l.Root(),
		LedgerPath:    l.Ledger(),
		LogDir:        l.MCPLogs(),
		Configured:    configuredNames(dir, opts),
		ClientName:    opts.ClientName,
		ClientVersion: opts.ClientVersion,
	}
}

// configuredNames names every server the workspace's configuration
// declares, trusted or not, mounted or not. With --mcp paths it returns
// nil (unknown): those name servers for one command, and the workspace's
// ledger must not retire the others because of it.
func configuredNames(dir string, opts Options) []string {
	if len(opts.MCP) > 0 {
		return nil
	}
	servers, _ := mcpconfig.Loader{}.Load(dir) // its warnings were reported by Configured
	names := make([]string, len(servers))
	for i, s := range servers {
		names[i] = s.Name
	}
	return names
}

// MountFleet mounts the servers configured for opts and returns once each
// is ready or has failed; it returns nil when none is configured. The
// caller closes the fleet. Problems with the config and the ledger go to
// opts.Warn; the state of each server is in [bridge.Fleet.Status].
func MountFleet(ctx context.Context, opts Options) (*bridge.Fleet, error) {
	dir, err := workDir(opts.Dir)
	if err != nil {
		return nil, err
	}
	servers, err := Servers(opts)
	if err != nil || len(servers) == 0 {
		return nil, err
	}
	f := bridge.Mount(ctx, servers, FleetOptions(dir, opts))
	for _, w := range f.Warnings() {
		warnTo(opts.Warn, "mcp: "+w)
	}
	return f, nil
}

// reportFleet warns of every server that is not ready and of every fault
// of a server's tool list (a tool dropped by a name collision, a schema
// repaired): nothing is skipped silently.
func reportFleet(f *bridge.Fleet, warn func(string)) {
	for _, st := range f.Status() {
		if st.State != bridge.Ready && st.State != bridge.Detached {
			warnTo(warn, fmt.Sprintf("mcp: server %s is %s: %s", st.Name, st.State, st.LastError))
		}
		for _, fault := range st.Faults {
			warnTo(warn, fmt.Sprintf("mcp: server %s: %s", st.Name, fault))
		}
	}
}

// deferredServer is a configured server whose tools come from the cache
// until one of them is called.
type deferredServer struct {
	cfg   mcpconfig.Server
	specs []tool.Spec
}

// mountOwn mounts the session's own fleet: every server opts.Mount asks
// for, except those UseCache lets it defer. It reports what went wrong and
// caches the tool lists it read. It returns nil when nothing was mounted.
func (s *Session) mountOwn(ctx context.Context) *bridge.Fleet {
	opts := s.opts
	opts.Dir, opts.Warn = s.dir, s.warn
	servers, err := Servers(opts)
	if err != nil {
		s.warn(fmt.Sprintf("mcp: %v", err))
		return nil
	}
	var now []mcpconfig.Server
	for _, cfg := range servers {
		if specs, ok := loadCached(s.dir, cfg, time.Now()); ok && opts.UseCache {
			if s.deferred == nil {
				s.deferred = make(map[string]deferredServer)
			}
			s.deferred[cfg.Name] = deferredServer{cfg: cfg, specs: specs}
			continue
		}
		now = append(now, cfg)
	}
	if len(now) == 0 {
		return nil
	}
	f := bridge.Mount(ctx, now, FleetOptions(s.dir, opts))
	for _, w := range f.Warnings() {
		s.warn("mcp: " + w)
	}
	reportFleet(f, s.warn)
	saveCached(s.dir, f, now, s.warn)
	return f
}

// mountDeferred mounts a server whose tools were listed from the cache, on
// the first call of one of them. It returns the server's error when it
// did not come up.
func (s *Session) mountDeferred(ctx context.Context, name string) error {
	s.mountMu.Lock()
	defer s.mountMu.Unlock()
	s.mu.Lock()
	d, ok := s.deferred[name]
	f, closed := s.fleet, s.closed
	s.mu.Unlock()
	if closed {
		return errors.New("the session has ended")
	}
	if !ok {
		return nil // mounted by an earlier call
	}
	if f == nil {
		opts := s.opts
		opts.Warn = s.warn
		f = bridge.Mount(ctx, nil, FleetOptions(s.dir, opts))
		stop := f.OnChange(s.graftsChanged)
		s.mu.Lock()
		s.fleet, s.stop = f, stop
		s.mu.Unlock()
	}
	st := f.Attach(ctx, d.cfg)
	s.mu.Lock()
	delete(s.deferred, name)
	s.stale = true
	s.mu.Unlock()
	saveCached(s.dir, f, []mcpconfig.Server{d.cfg}, s.warn)
	for _, x := range st {
		if x.State != bridge.Ready {
			return errors.New(x.LastError)
		}
	}
	return nil
}

// withDeferred grafts the cached tools of servers not mounted yet, in
// config order, after the mounted ones.
func (s *Session) withDeferred(d *deck.Deck) *deck.Deck {
	names := make([]string, 0, len(s.deferred))
	for n := range s.deferred {
		names = append(names, n)
	}
	slices.Sort(names)
	var lazy []tool.Tool
	for _, n := range names {
		for _, sp := range s.deferred[n].specs {
			t := &lazyTool{s: s, server: n, spec: sp}
			if ok, why := admitGraft(t, s.opts.Profile, s.opts.Tools); ok {
				lazy = append(lazy, t)
			} else {
				s.omitted = append(s.omitted, Omission{Name: sp.Name, Reason: why})
			}
		}
	}
	out, err := d.With(lazy...)
	if err != nil {
		s.warn(fmt.Sprintf("mcp: %v", err))
	}
	return out
}
