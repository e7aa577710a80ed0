package session

// What a session, and any host that loads a workspace's addons, asks the
// approvals before it runs the workspace's code.

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/indusagi/induscode/addons"
	"github.com/indusagi/induscode/addons/hooks"
	"github.com/indusagi/induscode/addons/manifest"
	"github.com/indusagi/induscode/bridge/mcpconfig"
	"github.com/indusagi/induscode/workspace"
)

// untrusted removes the servers declared by the workspace's own configs
// that the user has not approved as they are now (unless opts trusts them
// for this run), with one warning that names them, says why, and names
// the command that approves them.
func untrusted(opts Options, dir string, servers []mcpconfig.Server) []mcpconfig.Server {
	l := workspace.At(dir)
	project := []string{l.MCPConfig(), l.ProjectMCPConfig()}
	isProject := func(s mcpconfig.Server) bool { return slices.Contains(project, s.Source) }
	if opts.TrustProjectMCP || !slices.ContainsFunc(servers, isProject) {
		return servers
	}
	a, err := ReadApprovals(Options{Dir: dir, Approvals: opts.Approvals}, MCPGroup)
	var g *Group
	if err == nil {
		g = a.Group(MCPGroup)
	}
	var names []string
	kept := servers[:0:0]
	for _, s := range servers {
		if isProject(s) && (g == nil || !g.approved(serverKey{s.Source, s.Row})) {
			names = append(names, s.Name)
			continue
		}
		kept = append(kept, s)
	}
	if len(names) == 0 {
		return kept
	}
	what := "server " + names[0]
	if len(names) > 1 {
		what = "servers " + strings.Join(names, ", ")
	}
	why := "a repository's MCP config runs commands as you, so it needs your approval"
	if g != nil && g.Recorded {
		why = "the config or the code it runs " + g.Why()
	}
	msg := fmt.Sprintf("mcp: not starting %s from this workspace's .indusvx/mcp.json or .mcp.json: %s; review and approve it with: indusr mcp trust", what, why)
	if err != nil {
		msg += fmt.Sprintf(" (%v)", err)
	}
	warnTo(opts.Warn, msg)
	return kept
}

// approved reports whether the server row k is approved as it is now.
func (g *Group) approved(k serverKey) bool {
	for _, u := range g.Units {
		if u.server == k {
			return u.Approved || g.Overridden
		}
	}
	return g.Overridden
}

// Loader wraps the loaders of a host that loads the workspace's addons:
// an addon entry that leads out of the workspace is refused; a [process]
// addon goes to procs only when approved as it is now (its table and
// every file of its folder), else it is refused with a fault that says
// why and how to approve it, and never started; anything else goes to
// tier0. The AddonHooks group must have been read.
func (a *Approvals) Loader(procs, tier0 addons.Loader) addons.Loader {
	return gatedLoader{a: a, procs: procs, tier0: tier0}
}

type gatedLoader struct {
	a            *Approvals
	procs, tier0 addons.Loader
}

func (l gatedLoader) Load(ctx context.Context, path string) (*addons.Addon, error) {
	if err, ok := l.a.refused[path]; ok {
		return nil, refusedFault(path, err)
	}
	if !manifest.IsProcess(path) {
		return l.tier0.Load(ctx, path)
	}
	g := l.a.Group(AddonHooks)
	manifest := path
	if filepath.Base(path) != addons.ManifestFile {
		manifest = filepath.Join(path, addons.ManifestFile)
	}
	var u *Unit
	if g != nil {
		i := slices.IndexFunc(g.Units, func(u *Unit) bool { return u.process == manifest })
		if i >= 0 {
			u = g.Units[i]
		}
	}
	if u == nil || !l.a.MayRun(u) {
		why := "never approved"
		if g != nil && g.Recorded {
			why = g.Why()
		}
		return nil, &addons.Fault{Kind: addons.LoadFault, File: path,
			Msg: "this [process] addon runs a command and the files of its folder, so it starts only once you approve them as they are (" + why + "): review it and run indusr hooks trust"}
	}
	return l.procs.Load(ctx, path)
}

// hookRuns reports whether the hook h of group may run.
func (a *Approvals) hookRuns(group string, h hooks.Hook) bool {
	g := a.Group(group)
	if g == nil {
		return false
	}
	for _, u := range g.Units {
		if k := u.hook; k != nil && k.File == h.File && k.Line == h.Line && k.Name == h.Name &&
			k.Matcher == h.Matcher && k.Command == h.Command && k.Timeout == h.Timeout {
			return a.MayRun(u)
		}
	}
	return g.Overridden
}

// hookBinder binds the approved [[hook]] tables of a manifest, run with o;
// the others are left out (said once by warnPending, and held by the
// guards when they can block).
func (a *Approvals) hookBinder(o hooks.Options) manifest.HookBinder {
	return func(api addons.API, file string, decls []manifest.HookDecl) error {
		hs, err := hooks.FromDecls(file, decls)
		if err != nil {
			return err
		}
		var run []hooks.Hook
		for _, h := range hs {
			if a.hookRuns(AddonHooks, h) {
				run = append(run, h)
			}
		}
		if len(run) > 0 {
			hooks.NewSet(api.ID(), run, o).Register(api)
		}
		return nil
	}
}

// claudeHooks are the approved hooks of Claude Code's settings.
func (a *Approvals) claudeHooks() []hooks.Hook {
	var out []hooks.Hook
	if g := a.Group(ClaudeHooks); g != nil {
		for _, u := range g.Units {
			if a.MayRun(u) {
				out = append(out, *u.hook)
			}
		}
	}
	return out
}

// guards are the blocking hooks of group (PreToolUse, tool:before) that
// were approved once and have changed or gone since: editing a guard must
// not turn it off, so the calls it matches (as it is now, and as it was
// approved) fail until the user approves the change.
func (a *Approvals) guards(group string) []*hooks.Hook {
	g := a.Group(group)
	if g == nil || !g.Recorded || g.Overridden {
		return nil
	}
	var out []*hooks.Hook
	for _, u := range g.Units {
		if u.guard != nil && !u.Approved {
			out = append(out, u.guard)
		}
	}
	return append(out, g.gone...)
}

// registerGuards puts the guards of group on api: a gate that fails every
// call one of them matches, naming the hook and the fix.
func (a *Approvals) registerGuards(api addons.API, group string) {
	gs := a.guards(group)
	if len(gs) == 0 {
		return
	}
	api.On(addons.ToolBefore, addons.Gater(func(_ context.Context, p addons.Payload) addons.Decision {
		tp, ok := p.(addons.ToolPayload)
		if !ok {
			return addons.Decision{}
		}
		for _, h := range gs {
			if h.Matches(tp.Name) {
				where := ""
				if h.File != "" {
					where = fmt.Sprintf(" (%s:%d)", rel(a.Root, h.File), h.Line)
				}
				return addons.Decision{Stop: true, Reason: fmt.Sprintf(
					"the %s hook %q%s that guards %s changed since you approved it, so this call is held until you review the change and run: indusr hooks trust",
					h.Name, h.Command, where, tp.Name)}
			}
		}
		return addons.Decision{}
	}))
}

// warnPending says once, per group, what does not run and why.
func (a *Approvals) warnPending(warn func(string)) {
	for _, g := range a.Groups {
		for _, f := range g.Faults {
			warn("hooks: " + f.Error())
		}
		if g.Overridden {
			continue
		}
		pending := g.Pending()
		if len(pending) == 0 {
			continue
		}
		var hooksN, procsN int
		for _, u := range pending {
			if u.Kind == "process" {
				procsN++
			} else {
				hooksN++
			}
		}
		var what []string
		if hooksN > 0 {
			what = append(what, fmt.Sprintf("%d command hook(s)", hooksN))
		}
		if procsN > 0 {
			what = append(what, fmt.Sprintf("%d addon process(es)", procsN))
		}
		why := "a repository's hooks and addon processes run commands as you, by themselves, so they need your approval"
		if g.Recorded {
			why = "they " + g.Why()
			if len(a.guards(g.Name)) > 0 {
				why += "; the tool calls their PreToolUse hooks guard fail until then"
			}
		}
		warn(fmt.Sprintf("hooks: not running %s of %s: %s; review and approve them with: indusr hooks trust",
			strings.Join(what, " and "), relFiles(a.Root, g.Files), why))
	}
}

// relFiles names files relative to dir, comma-separated.
func relFiles(dir string, files []string) string {
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = rel(dir, f)
	}
	return strings.Join(out, ", ")
}
