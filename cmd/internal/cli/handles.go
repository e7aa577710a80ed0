package cli

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/indusagi/induscode/deck"
	"github.com/indusagi/induscode/deck/cards"
	"github.com/indusagi/induscode/workspace"
)

// The environment variables that wire the app cards' host handles and the
// web policy for an indusr session. They are read once per command.
const (
	envMemory        = "INDUSR_MEMORY"             // "file": keep memory in .indusvx/memory.md
	envDelegate      = "INDUSR_DELEGATE"           // argv template of the task card's agent, e.g. "claude -p {objective}"
	envSaasURL       = "INDUSR_SAAS_URL"           // base URL of the saas-action HTTP gateway
	envSaasToken     = "INDUSR_SAAS_TOKEN"         // its bearer token
	envRefusePrivate = "INDUSR_WEB_REFUSE_PRIVATE" // "1": webfetch refuses private, loopback and link-local addresses
)

// wireHandles fills the Framework handles an indusr session configures
// through the environment. A value it cannot use is a usage error.
func wireHandles(f *deck.Framework, dir string, getenv func(string) string) error {
	switch m := getenv(envMemory); m {
	case "", "session":
	case "file":
		f.Memory = cards.NewFileMemory(workspace.At(dir))
	default:
		return usagef("%s=%q: use file (kept in .indusvx/memory.md) or session (the default, forgotten at exit)", envMemory, m)
	}
	if tmpl := strings.TrimSpace(getenv(envDelegate)); tmpl != "" {
		// Words are split on white space and passed as argv: no shell
		// and no quoting, so an objective can never become a command.
		argv := strings.Fields(tmpl)
		if !strings.Contains(tmpl, "{objective}") {
			return usagef("%s=%q has no {objective} placeholder; write for example \"claude -p {objective}\"", envDelegate, tmpl)
		}
		name := filepath.Base(argv[0])
		f.Delegate = &cards.CommandRunner{Dir: dir, Roster: []cards.CommandAgent{
			{Name: name, Description: "runs " + tmpl, Argv: argv},
		}}
	}
	if u := strings.TrimSpace(getenv(envSaasURL)); u != "" {
		f.Saas = &cards.HTTPGateway{URL: u, Token: getenv(envSaasToken)}
	}
	switch v := getenv(envRefusePrivate); v {
	case "", "0", "false":
	case "1", "true":
		f.Web.RefusePrivate = true
	default:
		return usagef("%s=%q: use 1 or 0", envRefusePrivate, v)
	}
	return nil
}

// handlesHelp documents the variables for `indusr --help`.
var handlesHelp = fmt.Sprintf(`Environment:
  %s=file                 keep the memory card's notes in .indusvx/memory.md
  %s="claude -p {objective}"  the task card's agent (argv words, no shell)
  %s, %s   the saas-action HTTP gateway
  %s=1      webfetch refuses private, loopback and link-local addresses
  SEARXNG_URL, BRAVE_API_KEY, TAVILY_API_KEY  websearch backends (DuckDuckGo otherwise)`,
	envMemory, envDelegate, envSaasURL, envSaasToken, envRefusePrivate)
