package session

// Command hooks and addon processes in the session (issue 12): the
// [[hook]] tables and [process] addons of the workspace's addons and, with
// Options.ClaudeHooks, the hooks of Claude Code's project settings. Each
// runs commands a repository chose, as the user, by itself, so each group
// runs only once the user has approved exactly what it runs, like a
// workspace's own MCP config. The approvals live beside the MCP ones, in
// trusted-hooks.json, keyed by the folder that declares the group.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/oklog/ulid/v2"

	"github.com/indusagi/induscode/addons"
	"github.com/indusagi/induscode/addons/hooks"
	"github.com/indusagi/induscode/bridge"
	"github.com/indusagi/induscode/workspace"
)

// The hook groups, approved apart: approving the addons' hooks says
// nothing about Claude Code's, which run only when asked for.
const (
	AddonHooks  = "addons" // [[hook]] and [process] tables of .indus/addons/*/manifest.toml
	ClaudeHooks = "claude" // the hooks section of .claude/settings*.json
)

// ClaudeHooksAddon is the id of the addon that carries Claude Code's
// hooks; refusals and faults name it.
const ClaudeHooksAddon addons.ID = "claude-settings"

// HookGroup is one group of a workspace's command hooks and its approval.
type HookGroup struct {
	// Name is AddonHooks or ClaudeHooks.
	Name string `json:"name"`
	// Key is the folder the approval is recorded for.
	Key string `json:"key"`
	// Files are the files that declare hooks of the group.
	Files []string `json:"files"`
	// Hooks are the group's hooks, in declaration order.
	Hooks []hooks.Hook `json:"-"`
	// Processes are the manifests of the group's [process] addons, whose
	// commands run for as long as a session does (addons group only).
	Processes []string `json:"processes,omitempty"`
	// Faults are problems with Claude Code's settings (hooks that cannot
	// run here); a manifest's faults are reported when it is loaded.
	Faults []*addons.Fault `json:"-"`
	// Fingerprint identifies what the hooks run.
	Fingerprint string `json:"fingerprint"`
	// Trusted says the user approved exactly these hooks.
	Trusted bool `json:"trusted"`
}

// WorkspaceHooks reads the command hooks of the workspace, both groups
// (Claude Code's too, whether or not ClaudeHooks is set), and their
// approval. A group without hooks is still returned, empty.
func WorkspaceHooks(opts Options) ([]HookGroup, error) {
	dir, err := workDir(opts.Dir)
	if err != nil {
		return nil, err
	}
	root := workspace.At(dir).Root()
	store, err := hookTrustStore(opts)
	if err != nil {
		return nil, err
	}
	groups := []HookGroup{
		{Name: AddonHooks, Key: filepath.Join(root, filepath.FromSlash(addons.Dir))},
		{Name: ClaudeHooks, Key: filepath.Join(root, ".claude")},
	}
	byFile := addons.ManifestHooks(context.Background(), addons.Discovery{Workspace: root})
	files := make([]string, 0, len(byFile))
	for f := range byFile {
		files = append(files, f)
	}
	slices.Sort(files)
	for _, f := range files {
		hs, err := hooks.FromDecls(f, byFile[f])
		if err != nil {
			continue // ParseManifest accepted them; loading reports anything else
		}
		groups[0].Files = append(groups[0].Files, f)
		groups[0].Hooks = append(groups[0].Hooks, hs...)
	}
	procs := addons.ManifestProcesses(addons.Discovery{Workspace: root})
	var procFingerprint strings.Builder
	for _, f := range slices.Sorted(maps.Keys(procs)) {
		groups[0].Processes = append(groups[0].Processes, f)
		if !slices.Contains(groups[0].Files, f) {
			groups[0].Files = append(groups[0].Files, f)
		}
		p := procs[f]
		fmt.Fprintf(&procFingerprint, "%q %q %q %q\n", f, p.Command, p.Env, p.Timeout)
	}
	groups[1].Hooks, groups[1].Faults = hooks.LoadSettings(root)
	for _, h := range groups[1].Hooks {
		if !slices.Contains(groups[1].Files, h.File) {
			groups[1].Files = append(groups[1].Files, h.File)
		}
	}
	for i := range groups {
		g := &groups[i]
		g.Fingerprint = hooks.Fingerprint(g.Hooks)
		if len(g.Processes) > 0 {
			g.Fingerprint = fingerprintOf(g.Fingerprint + "\n" + procFingerprint.String())
		}
		if g.runs() {
			if g.Trusted, err = store.Trusted(g.Key, g.Fingerprint); err != nil {
				return groups, err
			}
		}
	}
	return groups, nil
}

// hookTrustStore keeps the approvals of hooks in trusted-hooks.json, in
// the folder of the MCP approvals.
func hookTrustStore(opts Options) (bridge.TrustStore, error) {
	mcp, err := trustStore(opts)
	if err != nil {
		return bridge.TrustStore{}, err
	}
	return bridge.NewTrustStore(filepath.Join(filepath.Dir(mcp.Path()), "trusted-hooks.json")), nil
}

// TrustHooks records the user's approval of every group of the
// workspace's hooks as they are now.
func TrustHooks(opts Options) ([]HookGroup, error) {
	groups, err := WorkspaceHooks(opts)
	if err != nil {
		return groups, err
	}
	store, err := hookTrustStore(opts)
	if err != nil {
		return groups, err
	}
	for i := range groups {
		g := &groups[i]
		if !g.runs() {
			continue
		}
		if err := store.Trust(g.Key, g.Fingerprint); err != nil {
			return groups, fmt.Errorf("recording the approval in %s: %w", store.Path(), err)
		}
		g.Trusted = true
	}
	return groups, nil
}

// RevokeHooks withdraws the approvals of the workspace's hooks; it
// reports whether there was one.
func RevokeHooks(opts Options) (bool, error) {
	dir, err := workDir(opts.Dir)
	if err != nil {
		return false, err
	}
	store, err := hookTrustStore(opts)
	if err != nil {
		return false, err
	}
	root := workspace.At(dir).Root()
	revoked := false
	for _, key := range []string{filepath.Join(root, filepath.FromSlash(addons.Dir)), filepath.Join(root, ".claude")} {
		had, err := store.Revoke(key)
		if err != nil {
			return revoked, err
		}
		revoked = revoked || had
	}
	return revoked, nil
}

// sessionHooks decides which of the workspace's hooks the session runs:
// the addons' unless NoAddons, Claude Code's only with ClaudeHooks, each
// group only when approved (or TrustHooks). What is left out, and why, is
// said once. It returns the options hooks run with and whether each group
// runs.
func (s *Session) sessionHooks(runner hooks.Runner) (o hooks.Options, addonsRun bool, claude []hooks.Hook) {
	id := s.opts.Name
	if id == "" {
		id = ulid.Make().String()
	}
	o = hooks.Options{Dir: s.dir, SessionID: id, Runner: runner, Report: func(f *addons.Fault) { s.warn(f.Error()) }}
	groups, err := WorkspaceHooks(Options{Dir: s.dir, TrustStore: s.opts.TrustStore})
	if err != nil {
		s.warn(fmt.Sprintf("hooks: %v; the workspace's command hooks are not run", err))
		return o, false, nil
	}
	for _, g := range groups {
		wanted := g.Name == AddonHooks && !s.opts.NoAddons || g.Name == ClaudeHooks && s.opts.ClaudeHooks
		if !wanted || !g.runs() && len(g.Faults) == 0 {
			continue
		}
		for _, f := range g.Faults {
			s.warn("hooks: " + f.Error())
		}
		if !g.runs() {
			continue
		}
		if !g.Trusted && !s.opts.TrustHooks {
			s.warn(fmt.Sprintf("hooks: not running %s of %s: a repository's hooks and addon processes run commands as you, by themselves, so they need your approval; review and approve them with: indusr hooks trust",
				g.what(), relFiles(s.dir, g.Files)))
			continue
		}
		if g.Name == AddonHooks {
			addonsRun = true
		} else {
			claude = g.Hooks
		}
	}
	if s.opts.ClaudeHooks {
		claude = append(s.userClaudeHooks(), claude...)
	}
	return o, addonsRun, claude
}

// userClaudeHooks are the hooks of the user's own Claude Code settings
// (~/.claude/settings.json), which run without an approval, as Claude
// Code runs them before the project's. When the workspace is the home
// folder that file is the project's too, and keeps the approval it needs
// as such.
func (s *Session) userClaudeHooks() []hooks.Hook {
	home, err := os.UserHomeDir()
	if err != nil {
		return nil
	}
	file := hooks.UserSettingsFile(home)
	for _, f := range hooks.SettingsFiles(workspace.At(s.dir).Root()) {
		if sameFile(f, file) {
			return nil
		}
	}
	hs, faults := hooks.LoadSettingsFiles(file)
	for _, f := range faults {
		s.warn("hooks: " + f.Error())
	}
	return hs
}

// sameFile reports whether a and b name one file: the same path, or the
// same file on disk.
func sameFile(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	x, errA := os.Stat(a)
	y, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(x, y)
}

// runs reports whether the group runs anything: hooks or processes.
func (g *HookGroup) runs() bool { return len(g.Hooks) > 0 || len(g.Processes) > 0 }

// what says what the group runs, for messages.
func (g *HookGroup) what() string {
	var parts []string
	if n := len(g.Hooks); n > 0 {
		parts = append(parts, fmt.Sprintf("%d command hook(s)", n))
	}
	if n := len(g.Processes); n > 0 {
		parts = append(parts, fmt.Sprintf("%d addon process(es)", n))
	}
	return strings.Join(parts, " and ")
}

func fingerprintOf(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Unapproved wraps the addon loader of a workspace whose addon processes
// the user has not approved: a [process] addon is refused with a fault
// that says how to approve it, and is never started; anything else goes
// to next.
func Unapproved(next addons.Loader) addons.Loader { return unapproved{next} }

type unapproved struct{ next addons.Loader }

func (u unapproved) Load(ctx context.Context, path string) (*addons.Addon, error) {
	if addons.IsProcessAddon(path) {
		return nil, &addons.Fault{Kind: addons.LoadFault, File: path,
			Msg: "this [process] addon runs a command of the repository, so it starts only once you approve it: review it and run indusr hooks trust"}
	}
	return u.next.Load(ctx, path)
}

// relFiles names files relative to dir, comma-separated.
func relFiles(dir string, files []string) string {
	out := make([]string, len(files))
	for i, f := range files {
		if r, err := filepath.Rel(dir, f); err == nil && !strings.HasPrefix(r, "..") {
			f = r
		}
		out[i] = f
	}
	return strings.Join(out, ", ")
}
