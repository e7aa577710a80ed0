package addons

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync"

	"github.com/indusagi/induscode/tool"
)

// ReservedCommands are the core command names no addon command may take.
var reservedCommands = []string{"help", "quit", "exit", "clear", "model", "compact"}

// ReservedCommands returns the names no addon command may take.
func ReservedCommands() []string { return slices.Clone(reservedCommands) }

// Loader turns an entry path into an addon. A failure becomes a load
// fault and the addon is skipped.
type Loader interface {
	Load(ctx context.Context, path string) (*Addon, error)
}

// HostOptions configure a [Host].
type HostOptions struct {
	// Loader reads addons from their paths (package addons/manifest has
	// the Tier-0 loader, addons/rpc the Tier-1 one); nil loads only the
	// in-process addons of [Host.LoadAddon] and refuses every path.
	Loader Loader
	// Handles are threaded into every surface and command; nil means none.
	Handles *Handles
	// Reserved replaces the reserved command names; nil means
	// [ReservedCommands].
	Reserved []string
	// Log receives what cannot go to a listener (a listener that
	// panicked); nil means slog.Default().
	Log *slog.Logger
}

// Registry is the folded contributions of every addon loaded so far, in
// load order.
type Registry struct {
	Subscriptions []Subscription
	Interceptors  []Interceptor
	Commands      []Command   // unique by name, first claimant kept
	Tools         []tool.Tool // unique by name, first claimant kept
	Gates         []GateInfo
}

// Loaded is one addon the host loaded.
type Loaded struct {
	ID      ID     `json:"id"`
	Version string `json:"version,omitempty"`
	Path    string `json:"path,omitempty"`
}

// Host loads addons and folds them into one registry. Its methods are safe
// for concurrent use, but loading is meant to happen once, at boot.
type Host struct {
	loader   Loader
	handles  *Handles
	reserved []string
	faults   *faults

	mu       sync.Mutex
	reg      Registry
	claimed  map[string]ID // command name -> owner ("" for reserved)
	tools    map[string]ID
	loaded   []Loaded
	faultLog []*Fault
}

// NewHost returns a host with nothing loaded.
func NewHost(o HostOptions) *Host {
	h := &Host{loader: o.Loader, handles: o.Handles, reserved: o.Reserved, faults: &faults{log: o.Log}}
	if h.loader == nil {
		h.loader = noLoader{}
	}
	if h.handles == nil {
		h.handles = &Handles{}
	}
	if h.reserved == nil {
		h.reserved = ReservedCommands()
	}
	h.claimed = make(map[string]ID)
	for _, r := range h.reserved {
		h.claimed[r] = ""
	}
	h.tools = make(map[string]ID)
	return h
}

// OnFault registers fn to hear every fault from now on, including faults
// of the dispatcher and chain of bundles built later. The returned
// function unsubscribes; calling it again does nothing.
func (h *Host) OnFault(fn func(*Fault)) (unsubscribe func()) { return h.faults.listen(fn) }

// Faults returns every fault the host has seen, in order.
func (h *Host) Faults() []*Fault {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.faultLog)
}

// Report records f and hands it to the listeners, as the host's own
// faults are. Loaders whose handlers run out of process report what goes
// wrong at run time through it (a call that timed out, a crash).
func (h *Host) Report(f *Fault) {
	if f != nil {
		h.report(f)
	}
}

func (h *Host) report(f *Fault) {
	h.mu.Lock()
	h.faultLog = append(h.faultLog, f)
	h.mu.Unlock()
	h.faults.report(f)
}

// LoadAll loads every source of d, in order, and returns the bundle of
// everything loaded so far.
func (h *Host) LoadAll(ctx context.Context, d Discovery) *Bundle {
	for _, src := range Sources(d) {
		h.LoadOne(ctx, src)
	}
	return h.Bundle()
}

// LoadOne loads, registers and folds one source. It reports whether the
// addon was loaded; when it was not, a fault says why.
func (h *Host) LoadOne(ctx context.Context, src Source) bool {
	a, err := h.load(ctx, src.Path)
	if err != nil {
		f := &Fault{Kind: LoadFault, Addon: src.ID, File: src.Path, Msg: "could not load the addon", Err: err}
		if fe, ok := err.(*Fault); ok {
			fe.Kind, fe.Addon = LoadFault, src.ID
			f = fe
		}
		h.report(f)
		return false
	}
	return h.fold(a, src)
}

// LoadAddon registers and folds an addon built by the host program
// itself (an always-on addon), without a loader.
func (h *Host) LoadAddon(a *Addon) bool {
	if a == nil || a.ID == "" {
		h.report(&Fault{Kind: LoadFault, Msg: "an in-process addon needs an id"})
		return false
	}
	return h.fold(a, Source{ID: a.ID})
}

func (h *Host) load(ctx context.Context, path string) (a *Addon, err error) {
	defer func() {
		if r := recover(); r != nil {
			a, err = nil, fmt.Errorf("the loader panicked: %v", r)
		}
	}()
	a, err = h.loader.Load(ctx, path)
	if err == nil && a == nil {
		err = fmt.Errorf("the loader returned no addon")
	}
	return a, err
}

func (h *Host) fold(a *Addon, src Source) bool {
	id := a.ID
	if id == "" {
		id = src.ID
	}
	s := &surface{id: id, handles: h.handles}
	if err := register(a, s); err != nil {
		h.report(&Fault{Kind: RegisterFault, Addon: id, File: src.Path, Msg: "the addon's register function failed", Err: err})
		return false
	}
	m := s.Manifest()
	var conflicts []*Fault
	h.mu.Lock()
	h.reg.Subscriptions = append(h.reg.Subscriptions, m.Subscriptions...)
	h.reg.Interceptors = append(h.reg.Interceptors, m.Interceptors...)
	h.reg.Gates = append(h.reg.Gates, m.Gates...)
	for _, c := range m.Commands {
		owner, taken := h.claimed[c.Name]
		switch {
		case taken && owner == "":
			conflicts = append(conflicts, &Fault{Kind: ConflictFault, Addon: id, File: src.Path,
				Msg: fmt.Sprintf("command %q is a core command; choose another name", c.Name), Err: ErrReservedName})
		case taken:
			conflicts = append(conflicts, &Fault{Kind: ConflictFault, Addon: id, File: src.Path,
				Msg: fmt.Sprintf("command %q is already added by addon %s; the first one is kept", c.Name, owner), Err: ErrDuplicateName})
		default:
			h.claimed[c.Name] = id
			h.reg.Commands = append(h.reg.Commands, c)
		}
	}
	for _, t := range m.Tools {
		name := t.Spec().Name
		if owner, taken := h.tools[name]; taken {
			conflicts = append(conflicts, &Fault{Kind: ConflictFault, Addon: id, File: src.Path,
				Msg: fmt.Sprintf("tool %q is already added by addon %s; the first one is kept", name, owner), Err: ErrDuplicateName})
			continue
		}
		h.tools[name] = id
		h.reg.Tools = append(h.reg.Tools, t)
	}
	h.loaded = append(h.loaded, Loaded{ID: id, Version: a.Version, Path: src.Path})
	h.mu.Unlock()
	for _, f := range conflicts {
		h.report(f)
	}
	return true
}

func register(a *Addon, s *surface) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("register panicked: %v", r)
		}
	}()
	if a.Register == nil {
		return nil
	}
	return a.Register(s)
}

// Registry returns a copy of the folded registry.
func (h *Host) Registry() Registry {
	h.mu.Lock()
	defer h.mu.Unlock()
	return Registry{
		Subscriptions: slices.Clone(h.reg.Subscriptions),
		Interceptors:  slices.Clone(h.reg.Interceptors),
		Commands:      slices.Clone(h.reg.Commands),
		Tools:         slices.Clone(h.reg.Tools),
		Gates:         slices.Clone(h.reg.Gates),
	}
}

// Bundle is the runtime of the loaded addons: the dispatcher, the chain,
// the commands and tools, and what was loaded. Its dispatcher and chain
// report faults to the host's listeners.
type Bundle struct {
	Dispatch *Dispatcher
	Chain    *Chain
	Commands []Command
	Tools    []tool.Tool
	Gates    []GateInfo
	Loaded   []Loaded
	Handles  *Handles
	host     *Host
}

// Bundle builds the runtime over everything loaded so far.
func (h *Host) Bundle() *Bundle {
	r := h.Registry()
	h.mu.Lock()
	loaded := slices.Clone(h.loaded)
	h.mu.Unlock()
	return &Bundle{
		Dispatch: NewDispatcher(r.Subscriptions, h.report),
		Chain:    NewChain(r.Interceptors, h.report),
		Commands: r.Commands,
		Tools:    r.Tools,
		Gates:    r.Gates,
		Loaded:   loaded,
		Handles:  h.handles,
		host:     h,
	}
}

// Faults returns every fault of the bundle's host so far.
func (b *Bundle) Faults() []*Fault {
	if b == nil || b.host == nil {
		return nil
	}
	return b.host.Faults()
}

// Empty reports whether the bundle changes nothing about a session.
func (b *Bundle) Empty() bool {
	return b == nil || (b.Dispatch.Len() == 0 && b.Chain.Len() == 0 && len(b.Tools) == 0)
}

// Command returns the command named name.
func (b *Bundle) Command(name string) (Command, bool) {
	for _, c := range b.Commands {
		if c.Name == name {
			return c, true
		}
	}
	return Command{}, false
}

// RunCommand runs the command named name with args in dir. A command that
// fails or panics is also reported as a command fault.
func (b *Bundle) RunCommand(ctx context.Context, name string, args []string, dir string) (out ExecOutcome, err error) {
	c, ok := b.Command(name)
	if !ok {
		names := make([]string, len(b.Commands))
		for i, c := range b.Commands {
			names[i] = c.Name
		}
		return ExecOutcome{}, fmt.Errorf("no addon command %q; commands: %v", name, names)
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("command %s panicked: %v", name, r)
		}
		if err != nil && b.host != nil {
			b.host.report(&Fault{Kind: CommandFault, Addon: c.Addon, Msg: fmt.Sprintf("command %s failed", name), Err: err})
		}
	}()
	if c.Run == nil {
		return ExecOutcome{}, nil
	}
	return c.Run(context.WithValue(ctx, commandAddonKey{}, c.Addon), CommandContext{Args: slices.Clone(args), Dir: dir, Handles: b.Handles})
}

type commandAddonKey struct{}

// CommandAddon is the addon whose command ctx runs (see
// [Bundle.RunCommand]), so a host's Exec handle can apply that addon's
// grants; "" outside a command.
func CommandAddon(ctx context.Context) ID {
	id, _ := ctx.Value(commandAddonKey{}).(ID)
	return id
}

// surface is the API one addon registers on.
type surface struct {
	id      ID
	handles *Handles
	m       Manifest
}

var _ API = (*surface)(nil)

func (s *surface) ID() ID { return s.id }

func (s *surface) On(e Event, h Handler) {
	s.m.Subscriptions = append(s.m.Subscriptions, Subscription{Addon: s.id, Event: e, Handler: h})
}

func (s *surface) OnTool(e Event, name string, h Handler) {
	s.m.Subscriptions = append(s.m.Subscriptions, Subscription{Addon: s.id, Event: e, Handler: h, Tool: name})
}

func (s *surface) InterceptTool(m Match, enter func(context.Context, EnterContext) EnterOutcome, exit func(context.Context, ExitContext) ExitOutcome) {
	s.m.Interceptors = append(s.m.Interceptors, Interceptor{Addon: s.id, Match: m, Enter: enter, Exit: exit})
}

func (s *surface) AddCommand(name, summary string, run func(context.Context, CommandContext) (ExecOutcome, error)) {
	s.m.Commands = append(s.m.Commands, Command{Name: name, Summary: summary, Addon: s.id, Run: run})
}

func (s *surface) AddTool(t tool.Tool) {
	if t != nil {
		s.m.Tools = append(s.m.Tools, t)
	}
}

func (s *surface) Handles() *Handles { return s.handles }

func (s *surface) Manifest() Manifest {
	return Manifest{
		Subscriptions: slices.Clone(s.m.Subscriptions),
		Interceptors:  slices.Clone(s.m.Interceptors),
		Commands:      slices.Clone(s.m.Commands),
		Tools:         slices.Clone(s.m.Tools),
		Gates:         slices.Clone(s.m.Gates),
	}
}

// describeGate records a declarative gate for listings.
func (s *surface) describeGate(g GateInfo) {
	g.Addon = s.id
	s.m.Gates = append(s.m.Gates, g)
}

// DescribeGate records, for listings, a gate a loader registered on api
// from a declaration (a manifest's [[gate]]); on a surface that is not
// the host's it does nothing.
func DescribeGate(api API, g GateInfo) {
	if r, ok := api.(interface{ describeGate(GateInfo) }); ok {
		r.describeGate(g)
	}
}

// noLoader is the loader of a host given none: it refuses every path.
type noLoader struct{}

func (noLoader) Load(_ context.Context, path string) (*Addon, error) {
	return nil, &Fault{Kind: LoadFault, File: path, Msg: "this host was given no loader for addon folders; pass one in HostOptions.Loader (such as manifest.Loader)"}
}
