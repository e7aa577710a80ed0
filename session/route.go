package session

import (
	"fmt"
	"strings"

	"github.com/indusagi/induscode/bridge"
	"github.com/indusagi/induscode/deck"
)

// UnknownToolError is a call naming a tool that the session does not have
// or that its configuration cannot provide; the message lists what there
// is, so the caller can print it as it stands.
type UnknownToolError struct {
	Name string // the name as the caller wrote it
	msg  string
}

func (e *UnknownToolError) Error() string { return e.msg }

// ForCall narrows opts to the MCP servers one call of the tool named name
// needs, so that a call starts nothing it does not use: no server for a
// catalog tool (or with NoMCP or NoTools), and for SERVER__TOOL only the
// server whose name is its prefix. A SERVER__TOOL whose server is not
// configured is an *UnknownToolError before anything starts; any other
// unknown name is left for the session to report (Resolve).
func ForCall(opts Options, name string) (Options, error) {
	opts.Mount, opts.Servers = MountNone, nil
	if _, ok := MatchName(name, deck.IDs()); ok || opts.NoMCP || opts.NoTools {
		return opts, nil
	}
	prefix, _, found := strings.Cut(name, bridge.Separator)
	if !found {
		return opts, nil
	}
	quiet := opts
	quiet.Warn = func(string) {} // the boot that follows warns once
	servers, err := Configured(quiet)
	if err != nil {
		return opts, err
	}
	var names []string
	for _, s := range servers {
		if strings.EqualFold(bridge.Qualify(s.Name, ""), prefix+bridge.Separator) {
			opts.Mount, opts.Servers = MountListed, []string{s.Name}
			return opts, nil
		}
		names = append(names, s.Name)
	}
	if len(names) == 0 {
		return opts, &UnknownToolError{Name: name, msg: fmt.Sprintf("unknown tool %q: no MCP server is configured (or trusted) here; see indusr mcp status", name)}
	}
	return opts, &UnknownToolError{Name: name, msg: fmt.Sprintf("unknown tool %q: no configured MCP server is named %q; servers: %s", name, prefix, strings.Join(names, ", "))}
}

// Resolve returns the name of the session's tool that want means (see
// MatchName), or an *UnknownToolError that lists the session's tools.
func (s *Session) Resolve(want string) (string, error) {
	names := s.Box().Names()
	if name, ok := MatchName(want, names); ok {
		return name, nil
	}
	if len(names) == 0 {
		return "", &UnknownToolError{Name: want, msg: fmt.Sprintf("unknown tool %q: the session has no tools", want)}
	}
	return "", &UnknownToolError{Name: want, msg: fmt.Sprintf("unknown tool %q; available: %s", want, strings.Join(names, ", "))}
}
