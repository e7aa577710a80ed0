package session

// Reading a workspace's own code into units: what each declaration says,
// as written, and which workspace files it runs.

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/indusagi/induscode/addons"
	"github.com/indusagi/induscode/addons/hooks"
	"github.com/indusagi/induscode/addons/manifest"
	"github.com/indusagi/induscode/approval"
	"github.com/indusagi/induscode/bridge/mcpconfig"
	"github.com/indusagi/induscode/workspace"
)

// serverKey identifies a server row: its file and row.
type serverKey struct{ source, row string }

// readMCP reads the servers of the workspace's own MCP configs.
func (a *Approvals) readMCP(tree *approval.Tree, g *Group) {
	l := workspace.At(a.Root)
	for _, f := range []string{l.MCPConfig(), l.ProjectMCPConfig()} {
		g.Files = append(g.Files, f)
		data, err := workspace.ReadRepoFile(a.Root, f, workspace.MaxConfigFile) // bounded, beneath the workspace
		if err != nil {
			continue // absent, or unreadable: then loading mounts nothing from it either
		}
		written, _ := mcpconfig.ParseAsWritten(data, f)
		expanded, _ := mcpconfig.Parse(data, f, os.LookupEnv)
		for _, w := range written {
			run := w
			for _, e := range expanded {
				if e.Row == w.Row {
					run = e
				}
			}
			g.Units = append(g.Units, a.serverUnit(tree, w, run))
		}
	}
}

// serverUnit is the unit of one server row: written is the row as
// written, run as it will run (variables expanded, cwd anchored).
func (a *Approvals) serverUnit(tree *approval.Tree, written, run mcpconfig.Server) *Unit {
	u := &Unit{Group: MCPGroup, Kind: "server", Name: written.Name,
		Where: rel(a.Root, written.Source) + " " + written.Row, server: serverKey{written.Source, written.Row}}
	var decl strings.Builder
	show := func(field, value string) {
		u.Shows = append(u.Shows, field+": "+value)
		fmt.Fprintf(&decl, "%s %q\n", field, value)
	}
	show("transport", written.Transport.String())
	if written.Transport == mcpconfig.Stdio {
		show("command", shellLine(append([]string{written.Command}, written.Args...)))
		for _, e := range written.Env {
			show("env", e.Name+"="+e.Value)
		}
		if written.Dir != "" {
			show("cwd", written.Dir)
		}
		cwd := run.Dir
		if cwd == "" {
			cwd = a.Root
		}
		words := append([]string{run.Command}, run.Args...)
		for _, e := range run.Env {
			words = append(words, e.Value) // BASH_ENV=./x.sh runs x.sh
		}
		u.addFiles(tree, approval.CommandFiles(words, cwd))
	} else {
		show("url", written.URL)
		for _, h := range written.Headers {
			show("header", h.Name+": "+h.Value)
		}
	}
	u.items = append(u.items, approval.Decl(fmt.Sprintf("server %s (%s %s)", written.Name, rel(a.Root, written.Source), written.Row), decl.String()))
	return u
}

// addFiles covers the files among paths that lie inside the workspace.
func (u *Unit) addFiles(tree *approval.Tree, paths []string) {
	for _, p := range paths {
		it, ok := tree.File(p)
		if !ok || slices.ContainsFunc(u.items, func(o approval.Item) bool { return o.ID == it.ID }) {
			continue
		}
		u.items = append(u.items, it)
		if it.Hash != "absent" {
			u.Files = append(u.Files, strings.TrimPrefix(it.ID, "file "))
		}
	}
}

// readAddons reads the [[hook]] and [process] tables of the workspace's
// addons. An addon entry that leads out of the workspace is refused here
// and when loading.
func (a *Approvals) readAddons(tree *approval.Tree, g *Group) {
	d := addons.Discovery{Workspace: a.Root}
	for _, src := range addons.Sources(d) {
		if err := tree.Inside(src.Path); err != nil {
			a.refused[src.Path] = err
			g.Faults = append(g.Faults, refusedFault(src.Path, err))
		}
	}
	inside := func(file string) bool {
		for p := range a.refused {
			if file == p || strings.HasPrefix(file, p+string(filepath.Separator)) {
				return false
			}
		}
		return true
	}
	grants := map[string]Grant{}
	for _, mg := range manifest.Grants(d) {
		grants[mg.File] = GrantOf(mg.Sandbox)
	}
	byFile := manifest.Hooks(context.Background(), d)
	for _, f := range slices.Sorted(maps.Keys(byFile)) {
		if !inside(f) {
			continue
		}
		hs, err := hooks.FromDecls(f, byFile[f])
		if err != nil {
			continue // manifest.Parse accepted them; loading reports anything else
		}
		g.Files = append(g.Files, f)
		for _, h := range hs {
			u := a.hookUnit(tree, AddonHooks, h)
			u.addGrant(a.Root, f, grants[f])
			g.Units = append(g.Units, u)
		}
	}
	procs := manifest.Processes(d)
	for _, f := range slices.Sorted(maps.Keys(procs)) {
		if !inside(f) {
			continue
		}
		if !slices.Contains(g.Files, f) {
			g.Files = append(g.Files, f)
		}
		u := a.processUnit(tree, f, procs[f])
		u.addGrant(a.Root, f, grants[f])
		g.Units = append(g.Units, u)
	}
}

// readClaude reads the hooks of Claude Code's project settings.
func (a *Approvals) readClaude(tree *approval.Tree, g *Group) {
	var hs []hooks.Hook
	hs, g.Faults = hooks.LoadSettings(a.Root)
	for _, h := range hs {
		if !slices.Contains(g.Files, h.File) {
			g.Files = append(g.Files, h.File)
		}
		u := a.hookUnit(tree, ClaudeHooks, h)
		u.Grant = &Grant{}
		u.Shows = append(u.Shows, "sandbox: "+claudeSandboxText())
		g.Units = append(g.Units, u)
	}
}

// addGrant shows the grant of the manifest file (which declares u) and
// makes it part of what u's approval covers: one item per manifest, so a
// changed grant is one change, named by its file.
func (u *Unit) addGrant(root, file string, g Grant) {
	u.Grant = &g
	u.Shows = append(u.Shows, "sandbox: "+grantText(g))
	u.items = append(u.items, approval.Decl("sandbox grant "+rel(root, file), fmt.Sprintf("%q %q %t", g.Read, g.Write, g.Network)))
}

// grantText says how an addon's code is confined on this system: within
// its grant wherever there is Landlock, whatever the session's mode.
func grantText(g Grant) string {
	if !Confinable() {
		return "unconfined: this system has no Landlock (its grant, not enforced here: " + g.String() + ")"
	}
	return g.String() + " (enforced with Landlock in every sandbox mode, off included)"
}

// claudeSandboxText says how a hook of Claude Code's settings, which has
// no grants, is confined on this system: as the session's commands are.
func claudeSandboxText() string {
	if !Confinable() {
		return "unconfined: this system has no Landlock"
	}
	return "as the session's commands: unconfined under --sandbox off (the default); under read-only or workspace-write, " +
		"writes only inside the workspace (never its protected paths), and the network as the session has it"
}

// hookUnit is the unit of one command hook: its declaration and the
// workspace files its command names, with $CLAUDE_PROJECT_DIR and
// $INDUSR_ADDON_DIR resolved as the hook will see them.
func (a *Approvals) hookUnit(tree *approval.Tree, group string, h hooks.Hook) *Unit {
	matcher := h.Matcher
	if matcher == "" {
		matcher = "*"
	}
	where := rel(a.Root, h.File)
	u := &Unit{Group: group, Kind: "hook", Name: h.Name + " " + matcher, Where: fmt.Sprintf("%s:%d", where, h.Line), hook: &h}
	u.Shows = append(u.Shows, "command: "+h.Command)
	if h.Timeout > 0 {
		u.Shows = append(u.Shows, "timeout: "+h.Timeout.String())
	}
	decl := approval.Decl(fmt.Sprintf("hook %s %s: %s (%s)", h.Name, matcher, h.Command, where),
		fmt.Sprintf("%q %q %q %q %d", where, h.Name, h.Matcher, h.Command, h.Timeout))
	if h.Event == addons.ToolBefore {
		decl.Event, decl.Matcher = h.Name, h.Matcher
		u.guard = &h
	}
	u.items = append(u.items, decl)
	vars := map[string]string{"CLAUDE_PROJECT_DIR": a.Root}
	if h.AddonDir != "" {
		vars["INDUSR_ADDON_DIR"] = h.AddonDir
	}
	words := approval.ShellWords(h.Command, vars)
	u.addFiles(tree, approval.CommandFiles(words, a.Root))
	a.coverHookCode(tree, u, words, a.Root)
	return u
}

// processUnit is the unit of one [process] addon: its table and its
// whole folder, and any other workspace file its command names.
func (a *Approvals) processUnit(tree *approval.Tree, file string, p *manifest.ProcessDecl) *Unit {
	dir := filepath.Dir(file)
	u := &Unit{Group: AddonHooks, Kind: "process", Name: rel(a.Root, dir), Where: fmt.Sprintf("%s:%d", rel(a.Root, file), p.Line), process: file}
	u.Shows = append(u.Shows, "command: "+shellLine(p.Command))
	if len(p.Env) > 0 {
		u.Shows = append(u.Shows, "env: "+strings.Join(p.Env, ", "))
	}
	if p.Timeout != "" {
		u.Shows = append(u.Shows, "timeout: "+p.Timeout)
	}
	u.items = append(u.items, approval.Decl(fmt.Sprintf("process %s", rel(a.Root, dir)),
		fmt.Sprintf("%q %q %q %q", p.Command, p.Env, p.Timeout, p.OnError)))
	files, err := tree.Folder(dir)
	if err != nil {
		files = []approval.Item{{ID: approval.FileID(rel(a.Root, dir)), Hash: "unreadable: " + err.Error()}}
	}
	u.items = append(u.items, files...)
	u.Files = append(u.Files, rel(a.Root, dir)+string(filepath.Separator)+fmt.Sprintf(" (%d files)", len(files)))
	u.addFiles(tree, approval.CommandFiles(p.Command, dir))
	a.coverHookCode(tree, u, p.Command, dir)
	return u
}

// coverHookCode makes a hook's or process's approval cover, beyond the
// files its command names, every file under .claude/ and .indus/ and,
// for a command that runs a package script (npm run, npx, ...), the
// package.json that holds it. No reading of a command can list what it
// reaches (source, $(cat x), a glob, cd then a relative name, a library
// the named script sources), so the folders where a workspace keeps its
// hook code are covered whole, and the approval text says so.
func (a *Approvals) coverHookCode(tree *approval.Tree, u *Unit, words []string, cwd string) {
	if a.hookCode == nil {
		a.hookCode = []approval.Item{}
		for _, f := range hookFolders {
			items, err := tree.Folder(filepath.Join(a.Root, f))
			if err != nil {
				if it, ok := tree.File(filepath.Join(a.Root, f)); ok && it.Hash != "absent" {
					a.hookCode = append(a.hookCode, approval.Item{ID: it.ID, Hash: "unreadable: " + err.Error()})
				}
				continue
			}
			a.hookCode = append(a.hookCode, items...)
		}
	}
	n := 0
	for _, it := range a.hookCode {
		if !coversFolderFile(u.Group, it.ID) {
			continue
		}
		n++
		if !slices.ContainsFunc(u.items, func(o approval.Item) bool { return o.ID == it.ID }) {
			u.items = append(u.items, it)
		}
	}
	covers := fmt.Sprintf("every file under .claude/ and .indus/ (%d now)", n)
	if u.Group == AddonHooks {
		covers = fmt.Sprintf("every file under .claude/ (Claude Code's settings aside) and .indus/ (%d now)", n)
	}
	if runsPackageScript(words) {
		u.addFiles(tree, []string{filepath.Join(cwd, "package.json"), filepath.Join(a.Root, "package.json")})
		covers += ", package.json (its scripts)"
	}
	u.Shows = append(u.Shows, "covers: "+covers+" and the files its command names; a change to any of them needs a new approval")
}

// coversFolderFile reports whether the approval of a unit of group covers
// the file item id found under the hook folders: every one, except that
// an addon's approval leaves out Claude Code's settings files, which are
// declarations (of the claude group, whose approval covers them) that
// Claude Code itself rewrites, not code an addon runs.
func coversFolderFile(group, id string) bool {
	if group != AddonHooks {
		return true
	}
	return id != approval.FileID(".claude/settings.json") && id != approval.FileID(".claude/settings.local.json")
}

// runsPackageScript reports whether a command runs a script that a
// package.json names (npm run x, npm test, npx x, yarn x, pnpm x, bun x).
func runsPackageScript(words []string) bool {
	for _, w := range words {
		switch filepath.Base(w) {
		case "npm", "npx", "yarn", "pnpm", "bun", "bunx", "pnpx":
			return true
		}
	}
	return false
}

func refusedFault(path string, err error) *addons.Fault {
	return &addons.Fault{Kind: addons.LoadFault, File: path,
		Msg: fmt.Sprintf("%v: %v; replace the link with the addon's own folder (or remove it)", ErrRefusedFolder, err)}
}

// rel names path relative to root when inside it.
func rel(root, path string) string {
	if r, err := filepath.Rel(root, path); err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return r
	}
	return path
}

// shellLine writes a command's words, quoting those that need it.
func shellLine(words []string) string {
	parts := slices.Clone(words)
	for i, p := range parts {
		if p == "" || strings.ContainsAny(p, " \t'\"$\\;&|<>()`") {
			parts[i] = fmt.Sprintf("%q", p)
		}
	}
	return strings.Join(parts, " ")
}
