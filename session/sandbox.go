package session

// The sandbox of the session's children: the mode for what the model
// runs (bash, process, delegates) and the grants of the workspace's
// addons for what they run (hooks, addon processes, manifest commands).

import (
	"fmt"
	"log/slog"
	"os"
	"strings"

	"github.com/indusagi/induscode/addons"
	"github.com/indusagi/induscode/addons/manifest"
	"github.com/indusagi/induscode/addons/policy"
	"github.com/indusagi/induscode/addons/rpc"
	"github.com/indusagi/induscode/internal/jail"
	"github.com/indusagi/induscode/tools/shell"
)

// sandboxState is the session's mode and the private temp folder its
// confined children share.
type sandboxState struct {
	mode jail.Mode
	temp string
}

// confine reads Options.Sandbox and, with a mode on, makes the temp
// folder and confines the session's shell engine. A mode this system
// cannot enforce is an *OptionError: the session never runs what it was
// asked to confine unconfined.
func (s *Session) confine() error {
	mode, err := jail.ParseMode(s.opts.Sandbox)
	if err != nil {
		return &OptionError{Option: "sandbox", Msg: err.Error(), Err: err}
	}
	if mode == jail.Off {
		return nil
	}
	if err := jail.Ready(); err != nil {
		return &OptionError{Option: "sandbox", Msg: fmt.Sprintf("sandbox %s: %v", mode, err), Err: err}
	}
	temp, err := jail.NewTemp()
	if err != nil {
		return fmt.Errorf("making the sandbox's temp folder: %w", err)
	}
	s.sandbox = sandboxState{mode: mode, temp: temp}
	if mode == jail.WorkspaceWrite {
		if err := jail.MountTier(); err != nil {
			slog.Debug("sandbox: workspace-write keeps to per-entry rules (no new top-level entries)", "reason", err)
		} else {
			slog.Debug("sandbox: workspace-write binds the protected paths in namespaces of its own", "helper", jail.Helper())
		}
	}
	env := s.base.Env()
	// Removed after the engine stopped the children that use it.
	_ = env.OnClose(func() error { return os.RemoveAll(temp) })
	shell.EngineOf(env).Confine(s.modePolicy())
	return nil
}

// SandboxMode is the session's sandbox mode.
func (s *Session) SandboxMode() jail.Mode { return s.sandbox.mode.Canon() }

// modePolicy is the policy of the session's mode, nil when off.
func (s *Session) modePolicy() *jail.Policy {
	p := jail.ForMode(s.sandbox.mode, s.dir, s.sandbox.temp)
	if p != nil {
		p.Network = s.opts.SandboxNetwork
	}
	return p
}

// Grant is what an addon's manifest grants its hooks, process and
// commands: paths to read and write (relative ones in the workspace) and
// the network.
type Grant struct {
	Read    []string `json:"read,omitempty"`
	Write   []string `json:"write,omitempty"`
	Network bool     `json:"network,omitempty"`
}

// String is the grant as a user reads it.
func (g Grant) String() string {
	var parts []string
	if len(g.Write) > 0 {
		parts = append(parts, "write "+strings.Join(g.Write, ", "))
	} else {
		parts = append(parts, "write nothing")
	}
	if len(g.Read) > 0 {
		parts = append(parts, "read "+strings.Join(g.Read, ", "))
	}
	if g.Network {
		parts = append(parts, "network")
	} else {
		parts = append(parts, "no network")
	}
	return strings.Join(parts, "; ")
}

// grantPolicy is the policy of an addon's grant: it reads the system
// folders and the workspace, writes its temp folder and what it was
// granted, whatever the session's mode (the grants are the addon's
// contract; the mode is for the model's commands). from names where the
// grant is declared, for the advice on widening it. Nil only where this
// system has no Landlock, as the approval text says.
func (s *Session) grantPolicy(g Grant, from string) *jail.Policy {
	temp := s.sandbox.temp
	if temp == "" {
		temp = s.addonTemp()
	}
	return GrantPolicy(s.dir, temp, g, from)
}

// addonTemp is the private temp folder of addon code when the session has
// no mode on (and so no temp folder of its own), made on first need and
// removed with the session.
func (s *Session) addonTemp() string {
	s.addonTempMu.Lock()
	defer s.addonTempMu.Unlock()
	if s.addonTempDir == "" {
		temp, err := jail.NewTemp()
		if err != nil {
			return ""
		}
		s.addonTempDir = temp
		_ = s.base.Env().OnClose(func() error { return os.RemoveAll(temp) })
	}
	return s.addonTempDir
}

// GrantPolicy is the policy that confines an addon's code (hooks, process,
// commands) of the workspace dir to its grant g, with temp its private
// temp folder; nil where this system has no Landlock.
func GrantPolicy(dir, temp string, g Grant, from string) *jail.Policy {
	if !Confinable() {
		return nil
	}
	home := func(ps []string) []string {
		out := make([]string, len(ps))
		for i, p := range ps {
			out[i] = policy.ExpandPath(p, "")
		}
		return out
	}
	p := jail.Policy{Mode: jail.ReadOnly, Workspace: dir, Read: home(g.Read), Write: home(g.Write), Network: g.Network, Temp: temp,
		Widen: fmt.Sprintf("to widen it, add the paths to write (or network = true) to the [sandbox] table of %s and approve it again with indusr hooks trust", from)}
	p = p.Clean()
	return &p
}

// Confinable reports whether this system can confine a child (Landlock).
func Confinable() bool { return jail.Probe().ABI > 0 }

// claudeHookPolicy is the policy of a hook of Claude Code's settings,
// which has no grant syntax: it runs as the session's commands do,
// unconfined under off and otherwise confined with writes inside the
// workspace (hooks format files and write logs), the protected paths
// kept.
func (s *Session) claudeHookPolicy() *jail.Policy {
	if s.sandbox.mode.Canon() == jail.Off {
		return nil
	}
	p := jail.ForMode(jail.WorkspaceWrite, s.dir, s.sandbox.temp)
	p.Network = s.opts.SandboxNetwork
	return p
}

// GrantOf is the grant of a [sandbox] table (nil: the least).
func GrantOf(d *manifest.SandboxDecl) Grant {
	if d == nil {
		return Grant{}
	}
	return Grant{Read: d.Read, Write: d.Write, Network: d.Network}
}

// fileGrant is a workspace addon's grant and the manifest declaring it.
type fileGrant struct {
	grant Grant
	file  string
}

// workspaceGrants are the grants of the workspace's manifest addons, by
// addon id.
func (s *Session) workspaceGrants() map[addons.ID]fileGrant {
	out := map[addons.ID]fileGrant{}
	if s.opts.NoAddons {
		return out
	}
	for _, g := range manifest.Grants(addons.Discovery{Workspace: s.dir}) {
		out[g.ID] = fileGrant{GrantOf(g.Sandbox), g.File}
	}
	return out
}

// ProcessOptions completes o, the options of a loader of the workspace's
// [process] addons outside a session (indusr addons list and check), as
// a session sets them: each process runs within the grant approved with
// it, whatever any mode, and is checked against its approval before each
// start. done removes the temp folder made for them; call it after the
// loader is closed.
func (a *Approvals) ProcessOptions(o rpc.Options) (_ rpc.Options, done func()) {
	temp, err := jail.NewTemp()
	if err != nil {
		temp = ""
	}
	o.Sandbox = func(file string, _ *manifest.SandboxDecl) *jail.Policy {
		return GrantPolicy(a.Root, temp, a.grantOf(file), file)
	}
	o.Check = a.checkProcess
	return o, func() {
		if temp != "" {
			os.RemoveAll(temp)
		}
	}
}
