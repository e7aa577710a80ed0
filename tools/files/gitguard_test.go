package files

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The deck's write and edit keep the git paths the sandbox keeps: a model
// that writes .git/config (core.fsmonitor, core.hooksPath), a hook, a
// commondir or another repository's .git would have the user's next git
// command run its program. Each is refused and left as it was; the
// ordinary files of .git and the work tree stay writable.
func TestWriteEditRefuseGitPaths(t *testing.T) {
	t.Parallel()
	env, dir := newEnv(t)
	for _, d := range []string{".git/hooks", ".git/info", ".git/refs", "sub/inner/.git", "wt"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	orig := map[string]string{
		".git/config":           "[core]\n\tbare = false\n",
		".git/hooks/pre-commit": "#!/bin/sh\n",
		".git/info/exclude":     "# nothing\n",
		"sub/inner/.git/config": "[core]\n",
		"wt/.git":               "gitdir: ../.git/worktrees/wt\n",
	}
	for rel, c := range orig {
		if err := os.WriteFile(filepath.Join(dir, rel), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A link inside the work tree that leads to the config.
	if err := os.Symlink("../.git/config", filepath.Join(dir, "sub", "cfg")); err != nil {
		t.Fatal(err)
	}
	plant := "[core]\n\tfsmonitor = touch /tmp/pwned\n"
	for _, rel := range []string{
		".git/config", ".git/config.worktree", ".git/commondir", ".git/hooks/pre-commit", ".git/hooks/post-checkout",
		".git/info/attributes", ".git/info/exclude", ".git/modules/m/config", ".git/worktrees/w/config.worktree",
		"sub/inner/.git/config", "sub/new/.git/config", "wt/.git", "sub/.git", ".git", "sub/cfg", ".GIT/config",
	} {
		// Read first where the file exists, so only the git rule can refuse.
		if _, err := os.Stat(filepath.Join(dir, rel)); err == nil {
			call(t, ReadTool(), env, map[string]any{"path": rel})
		}
		mustFail(t, call(t, WriteTool(), env, map[string]any{"path": rel, "content": plant}), "git path", "never change")
		if c, ok := orig[rel]; ok {
			mustFail(t, call(t, EditTool(), env, map[string]any{"path": rel, "old_string": strings.TrimSpace(c), "new_string": plant}), "git path")
		}
	}
	for rel, c := range orig {
		if got := readFile(t, filepath.Join(dir, rel)); got != c {
			t.Errorf("%s changed to %q", rel, got)
		}
	}
	for _, rel := range []string{".git/config.worktree", ".git/commondir", ".git/modules", ".git/worktrees", "sub/new", "sub/.git", ".git/info/attributes"} {
		if _, err := os.Lstat(filepath.Join(dir, rel)); err == nil {
			t.Errorf("%s was made", rel)
		}
	}
	// What git does not run stays writable.
	for _, rel := range []string{".git/COMMIT_EDITMSG", ".git/refs/notes.txt", "src/.gitignore", "src/gitconfig.txt"} {
		mustOK(t, call(t, WriteTool(), env, map[string]any{"path": rel, "content": "x\n"}))
	}
}
