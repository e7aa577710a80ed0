package files

import (
	"sync"

	"github.com/indusagi/induscode/tool"
)

// The deck's write and edit run in indusr itself, outside every sandbox,
// and the permission mode may let them change any file without asking.
// Code a user approved (a hook's script, an addon's folder, an MCP config)
// must still not be rewritten by the model: the next event would run the
// new code as the user. The session, which knows what its approvals
// cover, installs an ApprovedGuard; write and edit ask it before every
// change, whatever the mode.

// ApprovedGuard is asked before write or edit changes a file. root is the
// workspace root the file lies in as the model named it; rels are the
// file relative to it as named and with links followed. A non-nil error
// refuses the change, and its message (which names the approval) is what
// the model sees.
type ApprovedGuard func(root string, rels ...string) error

// GuardApproved installs guard for the session of env: every later write
// and edit of that session asks it. A nil guard removes it.
func GuardApproved(env *tool.Env, guard ApprovedGuard) {
	b := tool.Shared(env, approvedKey{}, func() *guardBox { return &guardBox{} })
	b.mu.Lock()
	b.guard = guard
	b.mu.Unlock()
}

type approvedKey struct{}

type guardBox struct {
	mu    sync.Mutex
	guard ApprovedGuard
}

// refuseApproved asks the session's guard, when one is installed.
func refuseApproved(env *tool.Env, root string, rels ...string) error {
	b := tool.Shared(env, approvedKey{}, func() *guardBox { return &guardBox{} })
	b.mu.Lock()
	g := b.guard
	b.mu.Unlock()
	if g == nil {
		return nil
	}
	return g(root, rels...)
}
