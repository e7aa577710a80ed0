package mcpconfig

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/indusagi/induscode/internal/jail"
	"github.com/indusagi/induscode/workspace"
)

// Transport is how the bridge reaches a server.
type Transport uint8

// The transports. The set is closed; code that switches on Transport
// handles every value (the bridge's dial; see its TestStatesHandled).
const (
	// Stdio runs the server as a child process speaking JSON lines on its
	// stdin and stdout.
	Stdio Transport = iota + 1
	// SSE is the legacy HTTP transport: a GET event stream plus POSTs.
	SSE
	// StreamableHTTP is the current HTTP transport: POSTs answered with
	// JSON or an event stream.
	StreamableHTTP

	// transportEnd is one past the last Transport: keep it last, so that
	// TestStatesHandled, which loops up to it, sees every new Transport.
	transportEnd
)

// Transports returns every Transport; each call returns a new slice.
func Transports() []Transport { return []Transport{Stdio, SSE, StreamableHTTP} }

func (t Transport) String() string {
	switch t {
	case Stdio:
		return "stdio"
	case SSE:
		return "sse"
	case StreamableHTTP:
		return "http"
	}
	return fmt.Sprintf("Transport(%d)", uint8(t))
}

// Pair is one name and value of an ordered map (environment variables,
// HTTP headers): declaration order is kept.
type Pair struct {
	Name, Value string
}

// Server describes one MCP server to mount.
type Server struct {
	// Name namespaces the server's tools: "<name>__<tool>".
	Name      string
	Transport Transport
	// Command, Args, Env and Dir start a Stdio server. Env adds to (and
	// overrides) the environment of this process; Dir defaults to the
	// session directory.
	Command string
	Args    []string
	Env     []Pair
	Dir     string
	// Sandbox confines a Stdio server (its row's "sandbox":
	// "read-only" or "workspace-write"; see package jail), with the
	// network only when SandboxNetwork ("sandboxNetwork": true). The
	// zero value runs it unconfined.
	Sandbox        jail.Mode
	SandboxNetwork bool
	// URL and Headers reach an SSE or StreamableHTTP server.
	URL     string
	Headers []Pair
	// DetectTransport is set for a row that gives a url but no type
	// (Transport is then StreamableHTTP): the bridge tries Streamable HTTP
	// first and falls back to SSE when the server answers the first POST
	// with 400, 404 or 405, as the MCP specification's backwards
	// compatibility rule says. [ServerStatus] shows the one that was used.
	DetectTransport bool
	// Tools chooses which of the server's tools are grafted.
	Tools ToolFilter
	// StartupTimeout bounds connecting, the handshake and listing the
	// tools; zero means the fleet's default.
	StartupTimeout time.Duration
	// CallTimeout bounds a call between two signs of life from the server
	// (the start, progress notifications); zero means the fleet's default.
	CallTimeout time.Duration
	// Source and Row are where the server was declared (a file and
	// "servers[2]" or `servers["fs"]`), for messages.
	Source, Row string
}

// Warning is a problem found while loading configuration: the file, the row
// (empty for the whole file) and what was wrong. Loading goes on after one.
type Warning struct {
	File, Row, Msg string
}

func (w Warning) String() string {
	if w.Row == "" {
		return w.File + ": " + w.Msg
	}
	return w.File + ": " + w.Row + ": " + w.Msg
}

// Loader finds and reads MCP configuration. The zero Loader reads the real
// environment and home directory.
type Loader struct {
	// LookupEnv resolves ${VAR} in config values and $HOME and
	// $XDG_CONFIG_HOME for discovery; nil means os.LookupEnv.
	LookupEnv func(string) (string, bool)
}

// Load is Loader{}.Load.
func Load(pathOrDir string) ([]Server, []Warning) {
	return Loader{}.Load(pathOrDir)
}

// Load reads MCP server configuration. When pathOrDir is an existing file it
// is parsed alone. Otherwise it is taken as a working directory and these
// files are merged, in this order, each one that exists:
//
//	<dir>/.indusvx/mcp.json
//	<dir>/.mcp.json                          (the format Claude Code uses)
//	$XDG_CONFIG_HOME/indusvx/mcp.json        ($XDG_CONFIG_HOME defaults to ~/.config)
//	~/.indusvx/agent/mcp.json
//	~/.indusvx/agent/mcp-servers.json
//
// Servers keep their declaration order across files; when two files declare
// the same name, the first declaration wins. Nothing here is fatal: a bad
// row is skipped and an unreadable or malformed file contributes nothing,
// each with a warning.
func (l Loader) Load(pathOrDir string) ([]Server, []Warning) {
	if fi, err := os.Stat(pathOrDir); err == nil && !fi.IsDir() {
		return l.merge([]string{pathOrDir}, "", 0, nil)
	} else if errors.Is(err, fs.ErrNotExist) {
		w := Warning{File: pathOrDir, Msg: "no such file or directory; looking for the usual config files under it as a directory"}
		return l.merge(l.Sources(pathOrDir), pathOrDir, workspaceSources, []Warning{w})
	}
	return l.merge(l.Sources(pathOrDir), pathOrDir, workspaceSources, nil)
}

// LoadAll reads the servers of several config paths (files or
// directories, each as [Loader.Load] reads it), in order; with no path it
// reads the discovered configuration of dir. A server name declared by two
// paths keeps its first declaration and the later one is reported. Blank
// paths are ignored, so a comma-separated flag's empty items do no harm.
func (l Loader) LoadAll(paths []string, dir string) ([]Server, []Warning) {
	var use []string
	for _, p := range paths {
		if p = strings.TrimSpace(p); p != "" {
			use = append(use, p)
		}
	}
	if len(use) == 0 {
		return l.Load(dir)
	}
	var (
		out      []Server
		warnings []Warning
	)
	seen := make(map[string]string) // name -> source of its first declaration
	for _, p := range use {
		servers, ws := l.Load(p)
		warnings = append(warnings, ws...)
		for _, s := range servers {
			if first, dup := seen[s.Name]; dup {
				if first != s.Source {
					warnings = append(warnings, Warning{File: s.Source, Row: s.Row,
						Msg: fmt.Sprintf("server %q is already declared in %s; this declaration is ignored", s.Name, first)})
				}
				continue
			}
			seen[s.Name] = s.Source
			out = append(out, s)
		}
	}
	return out, warnings
}

// workspaceSources is how many of the files [Loader.Sources] lists, from
// the first, belong to the workspace (and so are read beneath it).
const workspaceSources = 2

// Sources returns the files Load reads for a directory, in merge order,
// whether or not they exist.
func (l Loader) Sources(dir string) []string {
	out := []string{
		workspace.At(dir).MCPConfig(),
		workspace.At(dir).ProjectMCPConfig(),
	}
	home := l.home()
	xdg, _ := l.lookup("XDG_CONFIG_HOME")
	if xdg == "" && home != "" {
		xdg = filepath.Join(home, ".config")
	}
	if xdg != "" {
		out = append(out, filepath.Join(xdg, "indusvx", "mcp.json"))
	}
	if home != "" {
		out = append(out,
			filepath.Join(home, ".indusvx", "agent", "mcp.json"),
			filepath.Join(home, ".indusvx", "agent", "mcp-servers.json"))
	}
	return out
}

func (l Loader) lookup(name string) (string, bool) {
	if l.LookupEnv != nil {
		return l.LookupEnv(name)
	}
	return os.LookupEnv(name)
}

func (l Loader) home() string {
	if h, ok := l.lookup("HOME"); ok && h != "" {
		return h
	}
	if l.LookupEnv != nil {
		return ""
	}
	h, _ := os.UserHomeDir()
	return h
}

// merge parses files in order. A file reached twice (the project directory
// is the home directory) is read once; a name declared twice keeps its
// first declaration. The first inRepo files belong to the repository at
// repo: they are read beneath it, so a link out of it is refused; every
// file is read only when it is a regular file within the size bound (a
// link to /dev/zero or a named pipe is a warning, not a hang).
func (l Loader) merge(files []string, repo string, inRepo int, warnings []Warning) ([]Server, []Warning) {
	var out []Server
	seenFile := make(map[string]bool)
	seenName := make(map[string]string)
	for i, file := range files {
		abs, err := filepath.Abs(file)
		if err != nil {
			abs = file
		}
		if seenFile[abs] {
			continue
		}
		seenFile[abs] = true
		root := ""
		if i < inRepo {
			root = repo
		}
		data, err := workspace.ReadRepoFile(root, file, workspace.MaxConfigFile)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			warnings = append(warnings, Warning{File: file, Msg: fmt.Sprintf("cannot read it (%v); its servers are not mounted", readError(err))})
			continue
		}
		servers, ws := Parse(data, file, l.lookup)
		warnings = append(warnings, ws...)
		for _, s := range servers {
			if first, dup := seenName[s.Name]; dup {
				warnings = append(warnings, Warning{File: file, Row: s.Row,
					Msg: fmt.Sprintf("server %q is already declared in %s; this declaration is ignored", s.Name, first)})
				continue
			}
			seenName[s.Name] = s.Source + " " + s.Row
			out = append(out, s)
		}
	}
	return out, warnings
}

// MarshalText encodes the transport as its name.
func (t Transport) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

// readError is what a warning says of a failed read: a refusal's reason,
// or the system's error without the path the warning names already.
func readError(err error) string {
	var refused *workspace.RefusedError
	if errors.As(err, &refused) {
		return refused.Reason
	}
	if u := errors.Unwrap(err); u != nil {
		return u.Error()
	}
	return err.Error()
}
