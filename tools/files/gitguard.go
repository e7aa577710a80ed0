package files

import (
	"fmt"

	"github.com/indusagi/induscode/internal/jail"
)

// refuseGitPath refuses a change to a path git reads as code or as config
// that names code (jail.IsGitProtected: .git/config, its hooks, commondir,
// info, modules, worktrees, a .git pointer file, another repository's .git
// below the top): the deck's write and edit run in indusr, outside any
// sandbox, and keep the same paths the sandbox keeps, whatever the
// permission mode. named is the target relative to its workspace root as
// the model named it, real the same with symbolic links followed: either
// one protected refuses, so a link cannot lead around the check.
func refuseGitPath(name, named, real string) error {
	if !jail.IsGitProtected(named) && !jail.IsGitProtected(real) {
		return nil
	}
	return fmt.Errorf("%s is a git path that names code or configuration git runs on the user's next git command (.git/config*, hooks/, commondir, info/, modules/, worktrees/, a .git file, or another repository's .git); write and edit never change it. Ask the user to change it (git config, git init), or leave it alone", name)
}
