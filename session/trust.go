package session

import (
	"fmt"
	"slices"
	"strings"

	"github.com/indusagi/induscode/bridge"
	"github.com/indusagi/induscode/workspace"
)

// ProjectMCP is what a workspace's own MCP config files declare, and
// whether the user approved them.
type ProjectMCP struct {
	// Workspace is the workspace root the approval is keyed by.
	Workspace string
	// Files are the workspace config files, present or not.
	Files []string
	// Servers are the servers they declare.
	Servers []bridge.ServerConfig
	// Fingerprint identifies the files' current content.
	Fingerprint string
	// Trusted says the user approved exactly this content.
	Trusted bool
}

// ProjectConfig reads the workspace's own MCP configs and their approval.
func ProjectConfig(opts Options) (ProjectMCP, error) {
	dir, err := workDir(opts.Dir)
	if err != nil {
		return ProjectMCP{}, err
	}
	l := workspace.At(dir)
	p := ProjectMCP{Workspace: l.Root(), Files: []string{l.MCPConfig(), l.ProjectMCPConfig()}}
	for _, f := range p.Files {
		servers, _ := bridge.Loader{}.Load(f)
		p.Servers = append(p.Servers, servers...)
	}
	if p.Fingerprint, err = bridge.Fingerprint(p.Files); err != nil {
		return p, fmt.Errorf("reading the workspace's MCP config: %w", err)
	}
	store, err := trustStore(opts)
	if err != nil {
		return p, err
	}
	if p.Trusted, err = store.Trusted(p.Workspace, p.Fingerprint); err != nil {
		return p, err
	}
	return p, nil
}

func trustStore(opts Options) (bridge.TrustStore, error) {
	if opts.TrustStore != nil {
		return *opts.TrustStore, nil
	}
	return bridge.UserTrustStore(nil)
}

// TrustProject records the user's approval of the workspace's MCP configs
// as they are now; Revoke withdraws it.
func TrustProject(opts Options) (ProjectMCP, error) {
	p, err := ProjectConfig(opts)
	if err != nil {
		return p, err
	}
	store, err := trustStore(opts)
	if err != nil {
		return p, err
	}
	if err := store.Trust(p.Workspace, p.Fingerprint); err != nil {
		return p, fmt.Errorf("recording the approval in %s: %w", store.Path(), err)
	}
	p.Trusted = true
	return p, nil
}

// RevokeProject withdraws the approval of the workspace's MCP configs; it
// reports whether there was one.
func RevokeProject(opts Options) (bool, error) {
	dir, err := workDir(opts.Dir)
	if err != nil {
		return false, err
	}
	store, err := trustStore(opts)
	if err != nil {
		return false, err
	}
	return store.Revoke(workspace.At(dir).Root())
}

// untrusted removes the servers declared by the workspace's own configs
// unless the user approved them (or opts trusts them for this run), with
// one warning that names the servers and the command that approves them.
func untrusted(opts Options, dir string, servers []bridge.ServerConfig) []bridge.ServerConfig {
	l := workspace.At(dir)
	project := []string{l.MCPConfig(), l.ProjectMCPConfig()}
	isProject := func(s bridge.ServerConfig) bool { return slices.Contains(project, s.Source) }
	if opts.TrustProjectMCP || !slices.ContainsFunc(servers, isProject) {
		return servers
	}
	p, err := ProjectConfig(Options{Dir: dir, TrustStore: opts.TrustStore})
	if err == nil && p.Trusted {
		return servers
	}
	var names []string
	kept := servers[:0:0]
	for _, s := range servers {
		if isProject(s) {
			names = append(names, s.Name)
			continue
		}
		kept = append(kept, s)
	}
	what := "server " + names[0]
	if len(names) > 1 {
		what = "servers " + strings.Join(names, ", ")
	}
	msg := fmt.Sprintf("mcp: not starting %s from this workspace's .indusvx/mcp.json or .mcp.json: a repository's MCP config runs commands as you, so it needs your approval; review and approve it with: indusr mcp trust", what)
	if err != nil {
		msg += fmt.Sprintf(" (%v)", err)
	}
	warnTo(opts.Warn, msg)
	return kept
}
