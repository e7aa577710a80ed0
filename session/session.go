// Package session is the one boot path of induscode, as a library: [Open]
// turns options into a ready session (provision the profile's tools, keep
// the --tools allow-list, mount and graft the configured MCP servers, load
// a named session's saved state) and [Session.Close] ends everything it
// started. The indusr CLI and the MCP server (package serve) are thin
// callers of it, and so is any Go program that embeds the deck.
//
// A session owns one deck environment: the files it has read (for the
// read-before-edit gate), its checklist and its background processes. MCP
// servers are either mounted by the session itself or shared: a host that
// runs many sessions (serve) mounts one fleet with [MountFleet] and hands
// it to every [Open], and the sessions then see its tools come and go.
package session

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/indusagi/induscode/addons"
	"github.com/indusagi/induscode/addons/rpc"
	"github.com/indusagi/induscode/approval"
	"github.com/indusagi/induscode/bridge"
	"github.com/indusagi/induscode/deck"
	"github.com/indusagi/induscode/deck/checkpoint"
	"github.com/indusagi/induscode/internal/atomicfile"
	"github.com/indusagi/induscode/internal/childproc"
	"github.com/indusagi/induscode/tool"
	"github.com/indusagi/induscode/tools/checklist"
	"github.com/indusagi/induscode/workspace"
)

// Options say what session to open. The zero value opens a session of
// every tool (profile all) in the current directory, with the MCP servers
// configured there.
type Options struct {
	// Dir is the workspace; "" means the current directory.
	Dir string
	// Profile selects the catalog rows; zero means deck.All.
	Profile deck.Profile
	// Tools, when not empty, keeps only these built-in tools (names are
	// matched as [MatchName] does). It selects from the built-in deck
	// before the grafts join, so grafted tools (MCP servers, addon tools)
	// stay, unless entries name them (SERVER__TOOL, or a glob such as
	// fs__read_*): then only the grafted tools those entries match stay.
	Tools []string
	// NoTools provisions nothing at all and mounts no MCP server.
	NoTools bool
	// NoMCP mounts no MCP server (and ignores Fleet).
	NoMCP bool
	// MCP are config files or directories to read servers from, in order;
	// empty means the configuration discovered for Dir.
	MCP []string
	// Mount says which configured servers the session starts: all of them
	// (the zero value), none, or only those named in Servers. A command
	// that calls a built-in tool needs none; one that calls A__tool only A.
	Mount Mount
	// Servers are the servers MountListed starts, by config name.
	Servers []string
	// UseCache lets the session list a server's tools from the workspace's
	// tool-list cache, when it holds a fresh entry for the server's exact
	// config row, and start the server only when one of them is called.
	// Ignored with a shared Fleet.
	UseCache bool
	// TrustProjectMCP starts the servers of the workspace's own configs
	// (.indusvx/mcp.json, .mcp.json) even if the user has not approved
	// them (see ReadApprovals). Servers named by MCP paths and user-level
	// configs are always trusted: the user chose them.
	TrustProjectMCP bool
	// Approvals, when set, replaces the user's store of approvals of
	// workspace code (MCP configs, command hooks, addon processes).
	Approvals *approval.Store
	// ClaudeHooks runs the hooks of the workspace's Claude Code settings
	// (.claude/settings.json, .claude/settings.local.json), once approved
	// like the [[hook]] tables of its addons (see ReadApprovals), and
	// those of the user's own ~/.claude/settings.json, which need none.
	ClaudeHooks bool
	// TrustHooks runs the workspace's command hooks without an approval,
	// for one unattended run (CI).
	TrustHooks bool
	// Fleet, when set, is a fleet started by the host (see [StartFleet])
	// and shared with other sessions: the session grafts its tools, follows
	// its changes and leaves it running at Close. When nil the session
	// mounts its own fleet and closes it at Close.
	Fleet *Fleet
	// Name, when set, keeps the session's state (files read, checklist)
	// across processes in the workspace's sessions folder.
	Name string
	// Framework carries the host's handles for the deck; a nil Checkpoints
	// store means the workspace's disk store, so every write and edit can
	// be rewound.
	Framework deck.Framework
	// Warn receives problems that do not stop the session (a bad MCP config
	// row, a server that failed to start); nil means slog.Default().
	Warn func(msg string)
	// ClientName and ClientVersion identify the session to MCP servers.
	ClientName, ClientVersion string
	// Extra are the host's own tools (intent tools, a program's tools),
	// grafted after the MCP tools in every session opened with these
	// options. They are the caller's explicit choice, so Profile, Tools
	// and NoTools do not filter them; one whose name is already taken is
	// left out with a warning. serve opens one session per MCP client with
	// the same options, so these tool values are shared by those sessions;
	// a tool that keeps per-client state keeps it in the *tool.Env (as
	// intent.ToolsPerEnv does).
	Extra []tool.Tool
	// NoAddons loads none of the workspace's addons (.indus/addons).
	NoAddons bool
	// Sandbox is the sandbox mode of the commands the session starts for
	// the model (bash, process, delegates): "read-only",
	// "workspace-write", or "" or "off" for none. With a mode on, hooks
	// and addon processes run confined to their manifests' grants. A mode
	// the system cannot enforce fails Open (see sandbox.go).
	Sandbox string
	// SandboxNetwork lets the commands confined by Sandbox use the
	// network (addons still need their own grant).
	SandboxNetwork bool
	// Addons are addons of the host program itself, loaded after the
	// workspace's (also when NoAddons is set).
	Addons []*addons.Addon
	// Handles are the host's handles for addon commands (a conductor's
	// SendMessage, SetModel, SetThinking); Exec is always the session's
	// own, through its shell engine.
	Handles addons.Handles
	// Agent, for the session of a subagent, names its profile: the
	// session's session:start and session:end carry it, and the
	// SessionStart and SessionEnd hooks, which are the main agent's, do
	// not run for it.
	Agent string
	// ConversationID, when set and not empty, is the session_id hooks
	// see: the agent's conversation (its transcript's id), so that a hook
	// and the agent's output name the same session. Otherwise hooks see
	// the session's Name, or an id made for the session.
	ConversationID func() string
}

// Mount is which configured MCP servers a session starts.
type Mount uint8

// The mount policies.
const (
	MountAll    Mount = iota // every configured server
	MountNone                // no server
	MountListed              // only Options.Servers
)

// Session is one open session: a deck, its runner and whatever it
// mounted. It is safe for concurrent use.
type Session struct {
	opts   Options
	dir    string
	base   *deck.Deck // the session's own tools, before grafts
	fleet  *bridge.Fleet
	shared *Fleet // the host's, when the session shares one
	owns   bool   // the session mounted fleet and closes it
	stop   func()

	// mountMu serialises mounting deferred servers.
	mountMu sync.Mutex

	mu       sync.Mutex
	box      *deck.Box
	tools    []tool.Tool
	omitted  []Omission // grafts left out, rebuilt by refresh
	leftOut  []Omission // built-ins left out by the profile or --tools
	stale    bool
	deferred map[string]deferredServer // listed from the cache, not mounted
	watchers map[*func()]struct{}
	closed   bool
	listing  bool // a Catalog: no lifecycle, no calls

	sandbox sandboxState // the mode and its temp folder (sandbox.go)
	// addonTempDir is the temp folder of addon code under the off mode,
	// made on first need (addonTemp), guarded by addonTempMu.
	addonTempMu  sync.Mutex
	addonTempDir string
	addons       *addons.Bundle // nil when no addons were loaded
	addonProcs   *rpc.Loader    // the Tier-1 addons' processes
}

// Open boots a session: it provisions opts.Profile for the workspace,
// restores a named session, applies the Tools allow-list and grafts the MCP
// tools. An *OptionError reports options the caller must fix; other errors
// are failures of the machine (a workspace that cannot be read, a saved
// session that is corrupt). Problems with MCP servers only warn.
func Open(ctx context.Context, opts Options) (*Session, error) {
	return boot(ctx, opts, false)
}

// Catalog lists what a session opened with opts would provide (its own
// tools, the addons' tools, the grafted ones, and what was left out),
// without opening one: no housekeeping, no session:start or session:end,
// no saved state, and no process of its own left running (a [process]
// addon asked for its declarations is stopped at once). Grafted tools
// come from opts.Fleet, or from a fleet of its own mounted as Open would
// (with UseCache, cached servers are not started). The catalog follows
// the grafts as a session does ([Session.OnToolsChanged]); its Run
// refuses every call. Close it when done.
func Catalog(ctx context.Context, opts Options) (*Session, error) {
	opts.Name = ""
	return boot(ctx, opts, true)
}

// boot is Open, or with listing, Catalog.
func boot(ctx context.Context, opts Options, listing bool) (*Session, error) {
	if opts.Profile == 0 {
		opts.Profile = deck.All
	}
	dir, err := workDir(opts.Dir)
	if err != nil {
		return nil, err
	}
	s := &Session{opts: opts, dir: dir, stale: true, listing: listing}
	fw := opts.Framework
	if fw.Checkpoints == nil {
		fw.Checkpoints = checkpoint.ForWorkspace(dir)
	}
	var todos []checklist.Item
	if !listing {
		housekeep(dir, fw.Checkpoints)
		if opts.Name != "" {
			saved, err := loadSaved(dir, opts.Name)
			if err != nil {
				return nil, err
			}
			fw.ReadState, todos = saved.reads, saved.todos
		}
		if err := workspace.At(dir).MigrateLegacy(); err != nil {
			s.warn(fmt.Sprintf("moving old background logs into %s: %v", workspace.At(dir).Background(), err))
		}
	}
	d, err := deck.Provision(opts.Profile, deck.Setup{Dir: dir, Framework: fw})
	if err != nil {
		return nil, err
	}
	s.base = d
	if err := s.confine(); err != nil {
		d.Close()
		return nil, err
	}
	s.guardApproved()
	if err := checklist.Of(d.Env()).Set(todos); err != nil {
		d.Close()
		return nil, fmt.Errorf("session %s: restoring its checklist: %w", opts.Name, err)
	}
	if opts.NoTools {
		d.Retain(func(tool.Tool) bool { return false })
		return s, nil
	}
	s.leftOut = outsideProfile(opts.Profile)
	dropped, err := keepTools(d, opts.Tools, opts.Profile)
	if err != nil {
		d.Close()
		return nil, err
	}
	s.leftOut = append(s.leftOut, dropped...)
	s.loadAddons(ctx)
	if listing {
		// The catalog runs nothing: a process started to declare its
		// addon's tools stops now, and none starts later.
		if err := s.closeAddons(); err != nil {
			s.warn(fmt.Sprintf("addons: %v", err))
		}
	}
	if !opts.NoMCP {
		if opts.Fleet != nil {
			s.shared, s.fleet = opts.Fleet, opts.Fleet.bf
			s.stop = s.shared.OnChange(s.graftsChanged)
		} else if s.owns, s.fleet = true, s.mountOwn(ctx); s.fleet != nil {
			s.stop = s.fleet.OnChange(s.graftsChanged)
		}
	}
	if !listing {
		s.fire(ctx, addons.SessionStart)
	}
	return s, nil
}

// Dir is the session's workspace, absolute.
func (s *Session) Dir() string { return s.dir }

// Env is the deck environment every call of the session runs in.
func (s *Session) Env() *tool.Env { return s.base.Env() }

// Fleet is the MCP fleet the session grafts from, or nil.
func (s *Session) Fleet() *bridge.Fleet { return s.fleet }

// Box returns the runner over the session's current tools: its own, then
// the grafted ones. It is rebuilt after the grafted tools change, so call
// Box for each call rather than keeping one.
func (s *Session) Box() *deck.Box {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refresh()
	return s.box
}

// Tools returns the session's current tools in order.
func (s *Session) Tools() []tool.Tool {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refresh()
	return append([]tool.Tool(nil), s.tools...)
}

// Omitted returns the tools the session left out by its profile or
// --tools, with the reason for each: catalog rows first, then grafted
// tools.
func (s *Session) Omitted() []Omission {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refresh()
	return slices.Concat(s.leftOut, s.omitted)
}

// Run calls the named tool with input in this session (see deck.Box.Run).
func (s *Session) Run(ctx context.Context, name string, input []byte) tool.Result {
	if s.listing {
		return tool.Errorf("%s was not run: this is a catalog, which only lists tools; open a session to call them", name)
	}
	return s.Box().Run(ctx, name, input)
}

// refresh rebuilds the box when the grafts changed; s.mu is held.
func (s *Session) refresh() {
	if !s.stale {
		return
	}
	s.stale = false
	d := s.base
	s.omitted = nil
	if s.fleet != nil {
		var grafts []tool.Tool
		for _, t := range s.fleet.Tools() {
			if ok, why := admitGraft(t, s.opts.Profile, s.opts.Tools); ok {
				grafts = append(grafts, t)
			} else {
				s.omitted = append(s.omitted, Omission{Name: t.Spec().Name, Reason: why})
			}
		}
		var err error
		d, err = s.base.With(grafts...)
		if err != nil {
			s.warn(fmt.Sprintf("mcp: %v", err))
		}
	}
	if len(s.deferred) > 0 {
		d = s.withDeferred(d)
	}
	if s.shared != nil {
		d = s.withShared(d)
	}
	if len(s.opts.Extra) > 0 {
		// With, not Graft: d may be s.base, which must keep only the
		// session's own tools for the next refresh.
		var err error
		if d, err = d.With(s.opts.Extra...); err != nil {
			s.warn(fmt.Sprintf("extra tools: %v", err))
		}
	}
	if s.addons != nil {
		// Addon tools after every other graft, then the addons'
		// boundary around every tool: built-ins, app cards, MCP, Extra and
		// addon tools alike. With, not Graft: d may be s.base.
		var err error
		if d, err = d.With(s.addonTools()...); err != nil {
			s.warn(fmt.Sprintf("addons: %v", err))
		}
		d.Map(s.addons.Wrap)
	}
	s.tools = d.Tools()
	s.box = d.Box()
}

// OnToolsChanged registers fn to run after the session's tools changed
// (a grafted server came up, restarted or listed new tools). The returned
// function stops it.
func (s *Session) OnToolsChanged(fn func()) (stop func()) {
	key := &fn
	s.mu.Lock()
	if s.watchers == nil {
		s.watchers = make(map[*func()]struct{})
	}
	s.watchers[key] = struct{}{}
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		delete(s.watchers, key)
		s.mu.Unlock()
	}
}

func (s *Session) graftsChanged() {
	s.mu.Lock()
	s.stale = true
	fns := make([]func(), 0, len(s.watchers))
	for k := range s.watchers {
		fns = append(fns, *k)
	}
	s.mu.Unlock()
	for _, fn := range fns {
		fn()
	}
}

// Close ends the session: a named session's state is saved, every process
// its tools started is stopped, and a fleet it mounted itself is closed.
// Only the first Close does anything.
func (s *Session) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.mu.Unlock()
	var errs []error
	s.mu.Lock()
	stop := s.stop
	s.mu.Unlock()
	if stop != nil {
		stop()
	}
	if !s.listing {
		s.fire(context.Background(), addons.SessionEnd)
	}
	errs = append(errs, s.closeAddons())
	if s.opts.Name != "" && !s.listing {
		errs = append(errs, save(s.base.Env(), s.opts.Name))
	}
	errs = append(errs, s.base.Close())
	s.mountMu.Lock() // a deferred mount under way finishes first
	s.mu.Lock()
	f := s.fleet
	s.mu.Unlock()
	s.mountMu.Unlock()
	if s.owns && f != nil {
		errs = append(errs, f.Close())
	}
	return errors.Join(errs...)
}

func (s *Session) warn(msg string) { warnTo(s.opts.Warn, msg) }

func warnTo(warn func(string), msg string) {
	if warn != nil {
		warn(msg)
		return
	}
	slog.Default().Warn(msg)
}

// housekeep is the work a session does when it starts, for what sessions
// killed before they could clean up left behind: temp files of writes
// interrupted mid-way, at the workspace root and in the checkpoint store;
// checkpoints past their age and size limits; processes of sessions that
// were killed (SIGKILL) before they could stop them. It never fails a
// session.
func housekeep(dir string, store checkpoint.Store) {
	atomicfile.Sweep(dir)
	workspace.At(dir).SweepTemps()
	childproc.Reap(workspace.At(dir).Procs())
	if ds, ok := store.(*checkpoint.DiskStore); ok {
		ds.Sweep()
		// A prune reads and rewrites the whole store, so a session start
		// runs one at most once an hour.
		stamp := filepath.Join(ds.Dir(), pruneStamp)
		if fi, err := workspace.Lstat(stamp); err == nil && time.Since(fi.ModTime()) < pruneEvery {
			return
		}
		if _, err := workspace.Lstat(ds.Dir()); err != nil {
			return // no checkpoint yet
		}
		_, _ = ds.Prune(checkpoint.DefaultMaxAge, checkpoint.DefaultMaxBytes, time.Now())
		_ = workspace.WriteFile(stamp, nil, 0o644)
	}
}

// pruneStamp, in the checkpoint folder, is touched by each prune at session start.
const (
	pruneStamp = ".pruned"
	pruneEvery = time.Hour
)

// OptionError is an option the caller must fix: a working directory that
// is not one, a tool the profile lacks, a session name that cannot be a
// file name.
type OptionError struct {
	Option string // "dir", "tools", "name"
	Msg    string
	Err    error // the typed cause, if any: a *deck.Fault for an unknown tool id
}

func (e *OptionError) Error() string { return e.Msg }

// Unwrap returns the typed cause, so errors.Is(err, deck.ErrUnknownCapability)
// tells an unknown --tools id.
func (e *OptionError) Unwrap() error { return e.Err }

// WorkDir is the workspace a session in dir would have: dir made
// absolute, or the current directory. A dir that is not a directory is an
// *OptionError.
func WorkDir(dir string) (string, error) { return workDir(dir) }

// workDir is dir made absolute, or the current directory.
func workDir(dir string) (string, error) {
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", fmt.Errorf("working directory: %w", err)
		}
		dir = wd
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return "", &OptionError{Option: "dir", Msg: fmt.Sprintf("%q is not a directory", dir)}
	}
	return filepath.Abs(dir)
}
