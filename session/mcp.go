package session

import (
	"context"
	"fmt"

	"github.com/indusagi/induscode/bridge"
	"github.com/indusagi/induscode/workspace"
)

// Servers returns the MCP servers configured for opts: those of the
// opts.MCP paths in order, else those discovered for the workspace.
// Problems with the configuration go to opts.Warn.
func Servers(opts Options) ([]bridge.ServerConfig, error) {
	dir, err := workDir(opts.Dir)
	if err != nil {
		return nil, err
	}
	servers, warnings := bridge.Loader{}.LoadAll(opts.MCP, dir)
	for _, w := range warnings {
		warnTo(opts.Warn, "mcp: "+w.String())
	}
	return servers, nil
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
	f := bridge.Mount(ctx, servers, configured(FleetOptions(dir, opts), servers))
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
	f := bridge.Mount(context.Background(), nil, configured(FleetOptions(dir, opts), servers))
	go func() {
		defer close(done)
		f.Attach(context.Background(), servers...)
		for _, w := range f.Warnings() {
			warnTo(opts.Warn, "mcp: "+w)
		}
		reportFleet(f, opts.Warn)
	}()
	return f, done, nil
}

// configured names every configured server in fo, so the ledger retires
// the tools of servers that left the configuration. Pass the whole
// configuration, also when only some of its servers are mounted.
func configured(fo bridge.Options, servers []bridge.ServerConfig) bridge.Options {
	fo.Configured = make([]string, len(servers))
	for i, s := range servers {
		fo.Configured[i] = s.Name
	}
	return fo
}

// mountOwn mounts the session's own fleet and reports what went wrong.
func mountOwn(ctx context.Context, dir string, opts Options, warn func(string)) *bridge.Fleet {
	opts.Dir, opts.Warn = dir, warn
	f, err := MountFleet(ctx, opts)
	if err != nil {
		warn(fmt.Sprintf("mcp: %v", err))
		return nil
	}
	if f != nil {
		reportFleet(f, warn)
	}
	return f
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
