//go:build linux

package jail_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/indusagi/induscode/internal/jail"
	"github.com/indusagi/induscode/internal/jail/jailtest"
	"github.com/indusagi/induscode/internal/testpeer"
)

// gitPlants are ways a command under workspace-write could have the
// user's next git command run a program of its own (core.fsmonitor runs
// on git status and git diff): in the config, in another git folder that
// commondir points to, in a repository of its own below the top that a
// gitlink in the index makes git status enter, and in a .git pointer file
// of such a repository. MARK is the file the program makes, EVIL the
// program (written inside the workspace, as a command would).
var gitPlants = []struct{ name, script string }{
	{"core.fsmonitor in .git/config", `git config core.fsmonitor EVIL`},
	{"commondir to a planted git folder", `cp -r .git sub/evil && git --git-dir=sub/evil config core.fsmonitor EVIL && echo ../sub/evil > .git/commondir`},
	{"a repository below the top, entered through a gitlink", `git init -q sub/inner && git -C sub/inner -c user.name=a -c user.email=b commit -q --allow-empty -m x &&
git -C sub/inner config core.fsmonitor EVIL && git update-index --add --cacheinfo 160000,$(git -C sub/inner rev-parse HEAD),sub/inner`},
	{"a .git pointer below the top, entered through a gitlink", `git init -q --separate-git-dir=sub/gd sub/pt && git -C sub/pt -c user.name=a -c user.email=b commit -q --allow-empty -m x &&
git -C sub/pt config core.fsmonitor EVIL && git update-index --add --cacheinfo 160000,$(git -C sub/pt rev-parse HEAD),sub/pt`},
	// sub/vendored is a repository of its own before the command starts.
	{"the config of a repository that was below the top, entered through a gitlink", `printf '[core]\n\tfsmonitor = EVIL\n' >> sub/vendored/.git/config;
git -C sub/vendored config core.fsmonitor EVIL; git update-index --add --cacheinfo 160000,$(git -C sub/vendored rev-parse HEAD),sub/vendored`},
}

// TestGitPlantsRunNothing plants each, confined, then runs git status,
// git diff and git log as the user would, unconfined: the planted program
// must not run. Unconfined, each plant does run it, so the test can fail.
func TestGitPlantsRunNothing(t *testing.T) {
	needLandlock(t)
	testpeer.Command(t, "git", "install git")
	t.Parallel()
	for _, p := range gitPlants {
		for _, how := range []string{"unconfined", "helper", "ward"} {
			t.Run(p.name+", "+how, func(t *testing.T) {
				t.Parallel()
				s := jailtest.New(t)
				ws := filepath.Join(t.TempDir(), "repo")
				gitRepo(t, ws)
				gitRepo(t, filepath.Join(ws, "sub", "vendored"))
				mark := filepath.Join(s.Outside, "ran")
				evil := filepath.Join(ws, "sub", "evil.sh")
				script := fmt.Sprintf("printf '#!/bin/sh\\ntouch %s\\n' > %s && chmod +x %s && %s", mark, evil, evil,
					strings.ReplaceAll(p.script, "EVIL", evil))
				var policy *jail.Policy
				if how != "unconfined" {
					policy = jail.ForMode(jail.WorkspaceWrite, ws, t.TempDir())
				}
				s.Workspace = ws
				out := startedBy(s, policy, how == "ward")(t, script)
				for _, args := range [][]string{{"status"}, {"diff"}, {"log", "-1"}, {"-C", "sub/inner", "status"}, {"-C", "sub/pt", "status"}, {"-C", "sub/vendored", "status"}} {
					cmd := exec.Command("git", args...)
					cmd.Dir = ws
					_, _ = cmd.CombinedOutput()
				}
				_, err := os.Stat(mark)
				if how == "unconfined" && err != nil {
					t.Fatalf("unconfined, the plant did not run its program on git status, so the test proves nothing:\n%s", out)
				}
				if how != "unconfined" && err == nil {
					t.Fatalf("the user's git ran a program planted by a confined command:\n%s", out)
				}
			})
		}
	}
}

// gitRepo makes a repository with one commit at dir, and a folder sub.
func gitRepo(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "a.txt"}, {"-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q", "-m", "one"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}
