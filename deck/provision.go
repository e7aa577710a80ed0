package deck

import (
	"errors"
	"fmt"
	"slices"

	"github.com/indusagi/induscode/deck/checkpoint"
	"github.com/indusagi/induscode/tool"
	"github.com/indusagi/induscode/tools/lsp"
)

// Deck is the set of tools of one session, in order: the profile's catalog
// rows, then whatever the host grafts (MCP tools, addon tools).
type Deck struct {
	setup Setup
	env   *tool.Env
	tools []tool.Tool
}

// Provision builds the tools of every catalog row in profile p for the
// session described by setup. When setup.Framework carries a checkpoint store,
// every tool that says which files it changes ([tool.FileChanger]: write
// and edit) is wrapped so that each change can be rewound; without one
// every tool is exactly what its row built. A row whose build panics,
// returns nil or returns a tool under another name fails the whole
// provisioning with a [BuildFailed] fault naming the row; a profile that
// is not one of [Profiles] is an [UnknownCapability] fault.
func Provision(p Profile, setup Setup) (*Deck, error) {
	if !p.known() {
		return nil, &Fault{Kind: UnknownCapability, ID: p.String(), Msg: fmt.Sprintf("no such profile; use one of %v", Profiles())}
	}
	d := &Deck{setup: setup, env: setup.Env()}
	servers := setup.Framework.LanguageServers
	for _, c := range CardsFor(p) {
		t, err := build(c, setup)
		if err != nil {
			return nil, err
		}
		if servers != nil {
			t = lsp.Diagnose(t)
		}
		t = refreshIndex(t, setup.Framework.SearchIndex)
		// A card may know at build time that it stops with its context
		// (the task card over a runner that says so).
		tc, stops := t.(tool.Cancellable)
		d.tools = append(d.tools, watch(checkpoint.Wrap(t, setup.Framework.Checkpoints), setup.Framework.log(), c.Cancellable || stops && tc.Cancellable()))
	}
	if servers != nil {
		lsp.Use(d.env, lsp.NewManager(setup.Dir, *servers))
		d.tools = append(d.tools, watch(lsp.SymbolsTool(), setup.Framework.log(), true))
	}
	return d, nil
}

func build(c Card, setup Setup) (t tool.Tool, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &Fault{Kind: BuildFailed, ID: c.ID, Msg: fmt.Sprint("build panicked: ", r)}
		}
	}()
	t = c.Build(setup)
	if t == nil {
		return nil, &Fault{Kind: BuildFailed, ID: c.ID, Msg: "build returned no tool"}
	}
	if name := tool.NameOf(t); name != c.ID {
		return nil, &Fault{Kind: BuildFailed, ID: c.ID, Msg: fmt.Sprintf("build returned a tool named %q", name)}
	}
	return t, nil
}

// Setup returns what the deck was provisioned with.
func (d *Deck) Setup() Setup { return d.setup }

// Env returns the session environment every call of this deck runs in.
func (d *Deck) Env() *tool.Env { return d.env }

// Tools returns the deck's tools in order. The slice is a copy.
func (d *Deck) Tools() []tool.Tool { return slices.Clone(d.tools) }

// Graft appends extra tools after the deck's own. A tool whose name the
// deck already has, or whose name breaks the tool-name rule
// ([tool.ValidName]), is not added; the returned error names each one
// skipped and why (the deck is still usable). A grafted [tool.FileChanger]
// is checkpointed like write and edit when the deck has a store; a
// [tool.Cancellable] one runs on the caller's goroutine.
func (d *Deck) Graft(extra ...tool.Tool) error {
	have := make(map[string]bool, len(d.tools))
	for _, t := range d.tools {
		have[tool.NameOf(t)] = true
	}
	var errs []error
	for _, t := range extra {
		name := tool.NameOf(t)
		if err := tool.CheckName(name); err != nil {
			errs = append(errs, fmt.Errorf("graft: %w; skipped", err))
			continue
		}
		if have[name] {
			errs = append(errs, fmt.Errorf("graft: a tool named %q is already on the deck; skipped", name))
			continue
		}
		have[name] = true
		c, ok := t.(tool.Cancellable)
		d.tools = append(d.tools, watch(checkpoint.Wrap(t, d.setup.Framework.Checkpoints), d.setup.Framework.log(), ok && c.Cancellable()))
	}
	return errors.Join(errs...)
}

// With returns a copy of the deck with extra tools grafted after its own,
// as [Deck.Graft] would; d itself is unchanged and the copy shares its
// session. A host whose grafted tools come and go (MCP servers that
// restart) keeps one deck of its own tools and builds a fresh copy, and a
// fresh Box, whenever the grafts change.
func (d *Deck) With(extra ...tool.Tool) (*Deck, error) {
	c := &Deck{setup: d.setup, env: d.env, tools: slices.Clip(slices.Clone(d.tools))}
	return c, c.Graft(extra...)
}

// Map replaces every tool t with f(t); addons fold their interceptor chain
// around the tools this way.
func (d *Deck) Map(f func(tool.Tool) tool.Tool) {
	for i, t := range d.tools {
		d.tools[i] = f(t)
	}
}

// Close ends the deck's session: everything its tools started and that
// outlives a call (background processes, a command still running after
// its call was abandoned) is stopped, each process group with SIGTERM and,
// after 3 s, SIGKILL. Close returns when every group has been killed, its
// output closed and its leader reaped.
// Calls made after Close that would start something fail with a clear
// message. Only the first Close does anything; it is safe to defer.
func (d *Deck) Close() error { return d.env.Close() }

// Retain keeps only the tools keep approves, in order.
func (d *Deck) Retain(keep func(tool.Tool) bool) {
	d.tools = slices.DeleteFunc(d.tools, func(t tool.Tool) bool { return !keep(t) })
}
