package session

import (
	"context"
	"fmt"
	"slices"

	"github.com/indusagi/induscode/bridge"
	"github.com/indusagi/induscode/workspace"
)

// Configured returns the MCP servers configured for opts: those of the
// opts.MCP paths in order, else those discovered for the workspace, with
// the workspace's own configs only once approved. Problems with the
// configuration go to opts.Warn.
func Configured(opts Options) ([]bridge.ServerConfig, error) {
	dir, err := workDir(opts.Dir)
	if err != nil {
		return nil, err
	}
	servers, warnings := bridge.Loader{}.LoadAll(opts.MCP, dir)
	for _, w := range warnings {
		warnTo(opts.Warn, "mcp: "+w.String())
	}
	if len(opts.MCP) == 0 {
		servers = untrusted(opts, dir, servers)
	}
	return servers, nil
}

// Servers returns the configured servers that opts.Mount starts.
func Servers(opts Options) ([]bridge.ServerConfig, error) {
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
// its ledger log and server logs live in the workspace's state folder.
func FleetOptions(dir string, opts Options) bridge.Options {
	l := workspace.At(dir)
	return bridge.Options{
		Dir:           l.Root(),
		LedgerPath:    l.Ledger(),
		LogDir:        l.MCPLogs(),
		ClientName:    opts.ClientName,
		ClientVersion: opts.ClientVersion,
	}
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

// StartFleet is MountFleet without the wait: it returns at once with a
// fleet whose servers connect in the background, and a channel closed when
// every one is ready or has failed (after which servers that failed are
// reported to opts.Warn). Sessions that share the fleet see its tools
// arrive through [Session.OnToolsChanged]. It returns a nil fleet and a
// closed channel when no server is configured.
func StartFleet(opts Options) (*bridge.Fleet, <-chan struct{}, error) {
	done := make(chan struct{})
	dir, err := workDir(opts.Dir)
	if err != nil {
		close(done)
		return nil, done, err
	}
	servers, err := Servers(opts)
	if err != nil || len(servers) == 0 {
		close(done)
		return nil, done, err
	}
	f := bridge.Mount(context.Background(), nil, FleetOptions(dir, opts))
	go func() {
		defer close(done)
		f.Attach(context.Background(), servers...)
		for _, w := range f.Warnings() {
			warnTo(opts.Warn, "mcp: "+w)
		}
		reportFleet(f, opts.Warn)
		saveCached(dir, f, servers, opts.Warn)
	}()
	return f, done, nil
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
