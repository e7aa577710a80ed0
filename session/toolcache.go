package session

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/indusagi/induscode/bridge"
	"github.com/indusagi/induscode/bridge/mcpconfig"
	"github.com/indusagi/induscode/tool"
	"github.com/indusagi/induscode/workspace"
)

// The tool-list cache keeps, per server and per version of its config
// row, the tools it listed last time it was mounted. A session that may
// answer from it (Options.UseCache) lists a server's tools without
// starting it, and starts it only when one of them is called: `indusr
// tools` and a batch that never calls a server cost nothing for it.

// cacheFresh is how long a cached tool list is used without mounting its
// server again; after that the next command that may use it mounts the
// server and refreshes it. A day keeps `indusr tools` instant through a
// working day while a server's upgrade shows up by the next.
const cacheFresh = 24 * time.Hour

// cacheVersion is the format of cache files.
const cacheVersion = 1

type cachedList struct {
	Version     int          `json:"version"`
	Server      string       `json:"server"`
	Fingerprint string       `json:"fingerprint"`
	At          time.Time    `json:"at"`
	Tools       []cachedTool `json:"tools"`
}

type cachedTool struct {
	Name        string          `json:"name"`
	Label       string          `json:"label,omitempty"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"inputSchema"`
	ReadOnly    bool            `json:"readOnly,omitempty"`
}

// rowFingerprint identifies a server's config row: any change to what it
// runs or reaches, or to its tool filter, gives another fingerprint.
func rowFingerprint(cfg mcpconfig.Server) string {
	cfg.Source, cfg.Row = "", ""
	b, _ := json.Marshal(cfg)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func cachePath(dir string, cfg mcpconfig.Server) string {
	name := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '_'
	}, cfg.Name)
	return filepath.Join(workspace.At(dir).ToolCache(), name+"-"+rowFingerprint(cfg)[:16]+".json")
}

// loadCached returns the cached tools of cfg when a fresh entry for this
// exact config row exists.
func loadCached(dir string, cfg mcpconfig.Server, now time.Time) ([]tool.Spec, bool) {
	b, err := workspace.ReadFile(cachePath(dir, cfg))
	if err != nil {
		return nil, false
	}
	var c cachedList
	if json.Unmarshal(b, &c) != nil || c.Version != cacheVersion || c.Server != cfg.Name ||
		c.Fingerprint != rowFingerprint(cfg) || now.Sub(c.At) > cacheFresh || now.Before(c.At) {
		return nil, false
	}
	specs := make([]tool.Spec, 0, len(c.Tools))
	for _, t := range c.Tools {
		if !tool.ValidName(t.Name) || len(t.InputSchema) == 0 {
			return nil, false // a tampered or damaged entry: mount instead
		}
		specs = append(specs, tool.Spec{Name: t.Name, Label: t.Label, Description: t.Description, InputSchema: t.InputSchema, ReadOnly: t.ReadOnly})
	}
	return specs, true
}

// origin is what grafted tools tell about where they come from.
type origin interface{ Origin() (server, tool string) }

// saveCached records the tools of every ready server of f that servers
// configures. Failures only warn: the cache is an optimisation.
func saveCached(dir string, f *bridge.Fleet, servers []mcpconfig.Server, warn func(string)) {
	ready := make(map[string]bool)
	for _, st := range f.Status() {
		ready[st.Name] = st.State == bridge.Ready
	}
	byServer := make(map[string][]cachedTool)
	for _, t := range f.Tools() {
		o, ok := t.(origin)
		if !ok {
			continue
		}
		server, _ := o.Origin()
		sp := t.Spec()
		byServer[server] = append(byServer[server], cachedTool{Name: sp.Name, Label: sp.Label, Description: sp.Description, InputSchema: sp.InputSchema, ReadOnly: sp.ReadOnly})
	}
	now := time.Now().UTC()
	for _, cfg := range servers {
		if !ready[cfg.Name] {
			continue
		}
		c := cachedList{Version: cacheVersion, Server: cfg.Name, Fingerprint: rowFingerprint(cfg), At: now, Tools: byServer[cfg.Name]}
		if c.Tools == nil {
			c.Tools = []cachedTool{}
		}
		if err := writeCached(dir, cfg, c); err != nil {
			warnTo(warn, fmt.Sprintf("mcp: caching the tool list of %s: %v", cfg.Name, err))
		}
	}
}

func writeCached(dir string, cfg mcpconfig.Server, c cachedList) error {
	b, err := json.Marshal(c)
	if err != nil {
		return err
	}
	p := cachePath(dir, cfg)
	if err := workspace.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return workspace.WriteFile(p, b, 0o644)
}

// lazyTool is a cached grafted tool whose server is not mounted yet: its
// first call mounts the server, then runs the server's real tool.
type lazyTool struct {
	s      *Session // the session that mounts it, or nil when shared is set
	shared *Fleet   // the host's fleet that starts it for every session
	server string
	spec   tool.Spec
}

var _ tool.Tool = (*lazyTool)(nil)

// Spec hands out copies of the schemas: the lazy tool stands in every
// session of a serve process.
func (l *lazyTool) Spec() tool.Spec { return tool.CloneSpec(l.spec) }

func (l *lazyTool) Run(ctx context.Context, input json.RawMessage, env *tool.Env) tool.Result {
	if l.shared != nil {
		if err := l.shared.start(ctx, l.server); err != nil {
			return tool.Errorf("%s is not available: starting MCP server %q failed: %v", l.spec.Name, l.server, err)
		}
		if t := l.shared.grafted(l.spec.Name); t != nil {
			return t.Run(ctx, input, env)
		}
		return tool.Errorf("%s is no longer offered: MCP server %q does not list it any more (its tools changed since they were cached). List the tools again and use another.", l.spec.Name, l.server)
	}
	if err := l.s.mountDeferred(ctx, l.server); err != nil {
		return tool.Errorf("%s is not available: starting MCP server %q failed: %v", l.spec.Name, l.server, err)
	}
	// The server's own tool, not the Box's: the call is inside the
	// addons' boundary already, and must not cross it a second time.
	if t := l.s.grafted(l.spec.Name); t != nil {
		return t.Run(ctx, input, env)
	}
	return tool.Errorf("%s is no longer offered: MCP server %q does not list it any more (its tools changed since they were cached). List the tools again and use another.", l.spec.Name, l.server)
}

// grafted returns the mounted server tool with this name, or nil.
func (s *Session) grafted(name string) tool.Tool {
	s.mu.Lock()
	f := s.fleet
	s.mu.Unlock()
	if f == nil {
		return nil
	}
	for _, t := range f.Tools() {
		if t.Spec().Name == name {
			return t
		}
	}
	return nil
}
