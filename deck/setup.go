package deck

import (
	"log/slog"

	"github.com/indusagi/induscode/deck/cards"
	"github.com/indusagi/induscode/deck/checkpoint"
	"github.com/indusagi/induscode/tool"
	"github.com/indusagi/induscode/tools/lsp"
	"github.com/indusagi/induscode/tools/search"
	"github.com/indusagi/induscode/tools/web"
)

// Setup is what Provision and each card's Build receive: where the
// session works and the handles the host injected.
type Setup struct {
	// Dir is the working directory; relative paths resolve against it.
	Dir string
	// Roots are extra workspace roots writes may reach besides Dir.
	Roots []string
	// Framework carries optional host-provided handles.
	Framework Framework
}

// Framework is the typed bag of optional handles a host injects. A nil
// field means "not wired": cards that need it degrade to a clear stub or an
// in-process default, so every card builds in any environment.
type Framework struct {
	// ReadState, when set, is shared with the host (so a host that reads
	// files itself can satisfy the read-before-edit gate). When nil, each
	// deck gets its own.
	ReadState *tool.ReadState
	// Checkpoints, when set, receives the prior content of every file the
	// write and edit tools change, so the host can rewind them (see
	// package checkpoint). When nil, write and edit run unwrapped.
	Checkpoints checkpoint.Store
	// Log receives what the deck reports outside results (a tool that
	// panicked, with its stack). Nil means slog.Default().
	Log *slog.Logger
	// Web configures webfetch and websearch: the address policy (set
	// Web.RefusePrivate when the deck serves anyone but the local user)
	// and the search backends. The zero value fetches any address and
	// reads the search settings from the environment.
	Web web.Options
	// Delegate runs the task card's sub-agents (for example a
	// cards.CommandRunner). Nil: task answers "not configured".
	Delegate cards.DelegateRunner
	// Saas reaches third-party services for the saas-action card (for
	// example a cards.HTTPGateway). Nil: saas-action answers "not
	// configured".
	Saas cards.SaasGateway
	// Memory backs the memory card (cards.NewFileMemory keeps it in the
	// workspace). Nil: each session gets its own in-process memory.
	Memory cards.MemoryStore
	// LanguageServers, when set, gives each session a language-server
	// manager with these servers (lsp.LoadConfig reads the user's and
	// the workspace's settings): write and edit results end with the
	// diagnostics of the files they changed, and the read-only symbols
	// tool joins the deck after the catalog rows, in every profile. Nil
	// starts no language server and leaves symbols out.
	LanguageServers *lsp.Config
	// SearchIndex, when set, lets grep skip the files an index proves
	// hold no match (package internal/searchindex); results stay those of
	// a full scan. Nil: grep scans every file.
	SearchIndex search.Narrower
}

func (f Framework) log() *slog.Logger {
	if f.Log != nil {
		return f.Log
	}
	return slog.Default()
}

// Env returns the session environment a deck built from s runs its calls in.
func (s Setup) Env() *tool.Env {
	env := tool.NewEnv(s.Dir, s.Roots...)
	if s.Framework.ReadState != nil {
		env.Reads = s.Framework.ReadState
	}
	return env
}
