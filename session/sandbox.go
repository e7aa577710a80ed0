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

// grantPolicy is the policy of an addon's grant when the session has a
// mode on, else nil: it reads the system folders and the workspace, writes
// its temp folder and what it was granted. from names where the grant is
// declared, for the advice on widening it.
func (s *Session) grantPolicy(g Grant, from string) *jail.Policy {
	if s.sandbox.mode == jail.Off || s.sandbox.mode == "" {
		return nil
	}
	home := func(ps []string) []string {
		out := make([]string, len(ps))
		for i, p := range ps {
			out[i] = policy.ExpandPath(p, "")
		}
		return out
	}
	p := jail.Policy{Mode: jail.ReadOnly, Workspace: s.dir, Read: home(g.Read), Write: home(g.Write), Network: g.Network, Temp: s.sandbox.temp,
		Widen: fmt.Sprintf("to widen it, add the paths to write (or network = true) to the [sandbox] table of %s and approve it again with indusr hooks trust", from)}
	p = p.Clean()
	return &p
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
