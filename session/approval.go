package session

// The one place that decides whether a workspace's own code may run: the
// MCP servers of its configs, the command hooks of its addons and of
// Claude Code's settings, and its addon processes. Each is a Unit; the
// user approves a group of units with indusr mcp trust or indusr hooks
// trust, and package approval records exactly what was approved: each
// declaration as written and every workspace file it runs. A unit runs
// only while all of that is unchanged.

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/indusagi/induscode/addons"
	"github.com/indusagi/induscode/addons/hooks"
	"github.com/indusagi/induscode/approval"
	"github.com/indusagi/induscode/workspace"
)

// The groups of workspace code, approved apart: approving the MCP config
// says nothing about the hooks, nor the addons' hooks about Claude
// Code's, which run only when asked for.
const (
	MCPGroup    = "mcp"    // the servers of .indusvx/mcp.json and .mcp.json
	AddonHooks  = "addons" // [[hook]] and [process] tables of .indus/addons/*/manifest.toml
	ClaudeHooks = "claude" // the hooks section of .claude/settings*.json
)

// HookGroups are the groups indusr hooks trust approves.
var hookGroups = []string{AddonHooks, ClaudeHooks}

// Unit is one piece of a workspace's code that runs by itself: an MCP
// server, a command hook or an addon process.
type Unit struct {
	// Group is MCPGroup, AddonHooks or ClaudeHooks.
	Group string `json:"group"`
	// Kind is "server", "hook" or "process".
	Kind string `json:"kind"`
	// Name is the server's name, the hook's event and matcher, or the
	// addon's folder.
	Name string `json:"name"`
	// Where is the declaring file (and line or row), relative to the
	// workspace.
	Where string `json:"where"`
	// Shows are the unit's fields that change what runs or what is sent,
	// one "field: value" each, with variables as written.
	Shows []string `json:"shows"`
	// Files are the workspace files it runs (the files its command names,
	// an addon process's folder), relative to the workspace; a file named
	// but absent is left out here and still covered.
	Files []string `json:"files,omitempty"`
	// Grant is what the unit may reach when a sandbox mode is on: its
	// addon's [sandbox] table (Claude Code's hooks have none: the least).
	// It is part of the approval: a widened grant needs a new one. Nil
	// for a server.
	Grant *Grant `json:"grant,omitempty"`
	// Approved says the user approved exactly this declaration, these
	// files and this grant.
	Approved bool `json:"approved"`

	items []approval.Item
	// guard is set for a hook that can block a tool call (tool:before).
	guard *hooks.Hook
	// hook, server and process identify the unit for the runtime.
	hook    *hooks.Hook
	server  serverKey
	process string // manifest file
}

// Group is one group of units and its approval.
type Group struct {
	Name string `json:"name"`
	// Files are the files that declare the group's units.
	Files []string `json:"files"`
	Units []*Unit  `json:"units"`
	// Faults are problems found reading the group: hooks of Claude Code's
	// settings that cannot run here, addon folders refused.
	Faults []*addons.Fault `json:"-"`
	// Recorded says the user approved the group once; Changes are what
	// differs since (empty when Approved).
	Recorded bool              `json:"recorded"`
	Changes  []approval.Change `json:"changes,omitempty"`
	// Approved says every unit is approved and none was removed.
	Approved bool `json:"approved"`
	// Overridden says an option runs the group without an approval
	// (INDUSR_TRUST_PROJECT_MCP=1, INDUSR_TRUST_HOOKS=1).
	Overridden bool `json:"overridden,omitempty"`

	// gone are the approved guards no longer there as approved: they
	// still hold the calls they matched.
	gone []*hooks.Hook
	// items are all the items of the group's units.
	items []approval.Item
}

// Approvals is what a workspace's own code is and what the user approved
// of it.
type Approvals struct {
	// Root is the workspace.
	Root string `json:"workspace"`
	// Store is the file the approvals are kept in.
	Store  string   `json:"store"`
	Groups []*Group `json:"groups"`

	// refused are addon entries that leave the workspace, by path.
	refused map[string]error
	// hookCode are the items of every file under the hook folders (see
	// coverHookCode), read once.
	hookCode []approval.Item
}

// ReadApprovals reads the workspace's own code (every group, or those
// named) and the user's approval of it. Reading runs nothing.
func ReadApprovals(opts Options, groups ...string) (*Approvals, error) {
	dir, err := workDir(opts.Dir)
	if err != nil {
		return nil, err
	}
	store, err := approvalStore(opts)
	if err != nil {
		return nil, err
	}
	root := workspace.At(dir).Root()
	a := &Approvals{Root: root, Store: store.Path(), refused: map[string]error{}}
	tree, err := approval.OpenTree(root)
	if err != nil {
		return nil, err
	}
	defer tree.Close()
	if len(groups) == 0 {
		groups = []string{MCPGroup, AddonHooks, ClaudeHooks}
	}
	for _, name := range groups {
		g := &Group{Name: name}
		switch name {
		case MCPGroup:
			a.readMCP(tree, g)
			g.Overridden = opts.TrustProjectMCP
		case AddonHooks:
			a.readAddons(tree, g)
			g.Overridden = opts.TrustHooks
		case ClaudeHooks:
			a.readClaude(tree, g)
			g.Overridden = opts.TrustHooks
		default:
			return nil, fmt.Errorf("no group of workspace code is called %q", name)
		}
		a.Groups = append(a.Groups, g)
		if err := g.judge(store, root); err != nil {
			return a, err
		}
	}
	return a, nil
}

// approvalStore is opts.Approvals or the user's store.
func approvalStore(opts Options) (approval.Store, error) {
	if opts.Approvals != nil {
		return *opts.Approvals, nil
	}
	return approval.UserStore(nil)
}

// judge compares the group with its recorded approval.
func (g *Group) judge(store approval.Store, root string) error {
	for _, u := range g.Units {
		g.items = append(g.items, u.items...)
	}
	g.items = approval.Sorted(g.items)
	rec, ok, err := store.Recorded(root, g.Name)
	if err != nil {
		return err
	}
	g.Recorded = ok
	for _, u := range g.Units {
		u.Approved = ok && rec.Covers(u.items) && len(unverifiable(u.items)) == 0
	}
	if !ok {
		return nil
	}
	g.Changes = append(approval.Diff(rec.Items, g.items), unverifiable(g.items)...)
	g.Approved = len(g.Changes) == 0
	// A guard approved before and not there now as approved (removed, or
	// changed in its matcher, command or files) still holds its calls.
	for _, it := range rec.Items {
		if it.Event == "" || slices.ContainsFunc(g.items, func(n approval.Item) bool { return n == it }) {
			continue
		}
		if h, err := hooks.New(it.Event, it.Matcher, strings.TrimPrefix(it.ID, "hook "), 0); err == nil {
			g.gone = append(g.gone, &h)
		}
	}
	return nil
}

// unverifiable are the changes that no approval can cover: files too
// large to read and hash (a planted sparse file of gigabytes), which keep
// the units that cover them from running.
func unverifiable(items []approval.Item) []approval.Change {
	var out []approval.Change
	for _, it := range items {
		if it.Unverifiable() {
			out = append(out, approval.Change{Kind: fmt.Sprintf("over %d MiB, never covered", approval.MaxCovered>>20), ID: it.ID})
		}
	}
	return out
}

// Group returns the group named name, nil when it was not read.
func (a *Approvals) Group(name string) *Group {
	for _, g := range a.Groups {
		if g.Name == name {
			return g
		}
	}
	return nil
}

// MayRun reports whether u may run: approved as it is, or its group run
// without approval by an option.
func (a *Approvals) MayRun(u *Unit) bool {
	return u.Approved || a.Group(u.Group).Overridden
}

// Approve records the user's approval of the groups named (every group
// when none is) as they are now, and returns them as approved.
func Approve(opts Options, groups ...string) (*Approvals, error) {
	a, err := ReadApprovals(opts, groups...)
	if err != nil {
		return a, err
	}
	store, err := approvalStore(opts)
	if err != nil {
		return a, err
	}
	for _, g := range a.Groups {
		if len(g.Units) == 0 && !g.Recorded {
			continue
		}
		if err := store.Approve(a.Root, g.Name, g.items); err != nil {
			return a, fmt.Errorf("recording the approval in %s: %w", store.Path(), err)
		}
		g.Changes, g.gone = unverifiable(g.items), nil
		g.Recorded, g.Approved = true, len(g.Changes) == 0
		for _, u := range g.Units {
			u.Approved = len(unverifiable(u.items)) == 0
		}
	}
	return a, nil
}

// Revoke withdraws the approvals of the groups named (every group when
// none is) of the workspace; it reports whether there was one.
func Revoke(opts Options, groups ...string) (bool, error) {
	dir, err := workDir(opts.Dir)
	if err != nil {
		return false, err
	}
	store, err := approvalStore(opts)
	if err != nil {
		return false, err
	}
	return store.Revoke(workspace.At(dir).Root(), groups...)
}

// Pending are the units of the group that are not approved.
func (g *Group) Pending() []*Unit {
	var out []*Unit
	for _, u := range g.Units {
		if !u.Approved {
			out = append(out, u)
		}
	}
	return out
}

// Why says, for a message, what in the group needs an approval: never
// approved, or what changed since.
func (g *Group) Why() string {
	if !g.Recorded {
		return "never approved"
	}
	if len(g.Changes) == 0 {
		return "approved"
	}
	parts := make([]string, len(g.Changes))
	for i, c := range g.Changes {
		parts[i] = c.String()
	}
	return "changed since your approval (" + strings.Join(parts, "; ") + ")"
}

// ErrRefusedFolder marks an addon folder that leads out of the workspace.
var ErrRefusedFolder = errors.New("an addon folder that leads out of the workspace is never loaded")

// grantOf is the grant of the addon whose manifest is file, as read with
// its approval (the least when the manifest declares no unit), so what
// runs is confined by the grant the user approved, not by one written
// since.
func (a *Approvals) grantOf(file string) Grant {
	if g := a.Group(AddonHooks); g != nil {
		for _, u := range g.Units {
			if u.Grant != nil && (u.process == file || u.hook != nil && u.hook.File == file) {
				return *u.Grant
			}
		}
	}
	return Grant{}
}

// Hook is the command hook a unit of kind "hook" is, nil for others.
func (u *Unit) Hook() *hooks.Hook { return u.hook }
