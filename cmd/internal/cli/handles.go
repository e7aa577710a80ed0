package cli

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/indusagi/induscode/agents"
	"github.com/indusagi/induscode/deck"
	"github.com/indusagi/induscode/deck/cards"
	"github.com/indusagi/induscode/workspace"
)

// The environment variables that wire the app cards' host handles and the
// web policy for an indusr session.
const (
	envMemory        = "INDUSR_MEMORY"             // "file": keep memory in .indusvx/memory.md
	envDelegate      = "INDUSR_DELEGATE"           // argv template of the task card's agent, e.g. "claude -p {objective}"
	envSaasURL       = "INDUSR_SAAS_URL"           // base URL of the saas-action HTTP gateway
	envSaasToken     = "INDUSR_SAAS_TOKEN"         // its bearer token
	envRefusePrivate = "INDUSR_WEB_REFUSE_PRIVATE" // "1": webfetch refuses private, loopback and link-local addresses
)

// handles is what the environment asks for, checked but not yet bound
// to a workspace.
type handles struct {
	fileMemory    bool
	delegate      []string // argv template
	saasURL       string
	saasToken     string
	refusePrivate bool
}

// parseHandles reads and checks the variables; a value it cannot use is
// a usage error.
func parseHandles(getenv func(string) string) (handles, error) {
	var h handles
	switch m := getenv(envMemory); m {
	case "", "session":
	case "file":
		h.fileMemory = true
	default:
		return h, usagef("%s=%q: use file (kept in .indusvx/memory.md) or session (the default, forgotten at exit)", envMemory, m)
	}
	if tmpl := strings.TrimSpace(getenv(envDelegate)); tmpl != "" {
		if !strings.Contains(tmpl, "{objective}") {
			return h, usagef("%s=%q has no {objective} placeholder; write for example \"claude -p {objective}\"", envDelegate, tmpl)
		}
		// Words are split on white space and passed as argv: no shell
		// and no quoting, so an objective can never become a command.
		h.delegate = strings.Fields(tmpl)
	}
	h.saasURL, h.saasToken = strings.TrimSpace(getenv(envSaasURL)), getenv(envSaasToken)
	switch v := getenv(envRefusePrivate); v {
	case "", "0", "false":
	case "1", "true":
		h.refusePrivate = true
	default:
		return h, usagef("%s=%q: use 1 or 0", envRefusePrivate, v)
	}
	return h, nil
}

// framework binds the handles to the workspace at dir ("" is the current
// directory).
func (h handles) framework(dir string) deck.Framework {
	var f deck.Framework
	if h.fileMemory {
		f.Memory = cards.NewFileMemory(workspace.At(dir))
	}
	if len(h.delegate) > 0 {
		f.Delegate = &cards.CommandRunner{Dir: dir, Roster: []cards.CommandAgent{{
			Name:        filepath.Base(h.delegate[0]),
			Description: "runs " + strings.Join(h.delegate, " "),
			Argv:        h.delegate,
		}}}
		// The workspace's subagent profiles (.indus/agents), when
		// there are any, are the roster, each run with the same command.
		// A malformed profile is left out here; indusr addons check names it.
		if profiles, _ := agents.Discover(dir); len(profiles) > 0 {
			f.Delegate = &cards.CommandRunner{Dir: dir, Roster: agents.Roster(profiles, h.delegate)}
		}
	}
	if h.saasURL != "" {
		f.Saas = &cards.HTTPGateway{URL: h.saasURL, Token: h.saasToken}
	}
	f.Web.RefusePrivate = h.refusePrivate
	return f
}

// handlesHelp documents the variables for `indusr --help`.
var handlesHelp = fmt.Sprintf(`Environment:
  %s=file                 keep the memory card's notes in .indusvx/memory.md
  %s="claude -p {objective}"  the task card's agent (argv words, no shell)
  %s, %s   the saas-action HTTP gateway
  %s=1      webfetch refuses private, loopback and link-local addresses
  SEARXNG_URL, BRAVE_API_KEY, TAVILY_API_KEY  websearch backends (DuckDuckGo otherwise)`,
	envMemory, envDelegate, envSaasURL, envSaasToken, envRefusePrivate)
