package agents

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/indusagi/induscode/addons"
	"github.com/indusagi/induscode/internal/testpeer"

	"github.com/indusagi/induscode/tools/shell"
)

// gitRepo makes a repository with one commit.
func gitRepo(t *testing.T) string {
	t.Helper()
	testpeer.Command(t, "git", "install git")
	dir := t.TempDir()
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"},
		{"-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-q", "--allow-empty", "-m", "start"},
	} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v: %s", args, err, out)
		}
	}
	return dir
}

// A scripted teammate command: each task writes a file named after the
// task in the teammate's worktree; a prompt of "fail" fails.
const teammate = `[ "$2" = fail ] && { echo "cannot do it" >&2; exit 1; }; printf '%s by %s\n' "$2" "$3" > "task-$1.txt"; echo "did $1"`

func TestCrewRun(t *testing.T) {
	repo := gitRepo(t)
	eng := shell.NewEngine(t.TempDir())
	defer eng.Close()
	runner := CommandRunner{Command: teammate, Exec: func(ctx context.Context, command string, args []string) (addons.ExecOutcome, error) {
		r, err := eng.Exec(ctx, command, args, repo, 30*time.Second)
		return addons.ExecOutcome{Stdout: r.Stdout, Stderr: r.Stderr, Code: r.Code}, err
	}}
	crew := &Crew{
		Profiles: []Profile{{Name: "builder"}, {Name: "tester"}},
		Repo:     repo,
		Dir:      t.TempDir(),
		Runner:   runner,
	}
	tasks := []Task{
		{ID: "build", Prompt: "compile; rm -rf /", Assign: "builder"},
		{ID: "test", Prompt: "run the tests", Deps: []string{"build"}, Assign: "tester"},
		{ID: "docs", Prompt: "write docs"},
		{ID: "release", Prompt: "fail", Deps: []string{"test"}},
		{ID: "announce", Prompt: "tell everyone", Deps: []string{"release"}},
	}
	rep, err := crew.Run(context.Background(), tasks)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(rep.Completed)
	if strings.Join(rep.Completed, ",") != "build,docs,test" || strings.Join(rep.Failed, ",") != "release,announce" {
		t.Errorf("completed %v failed %v", rep.Completed, rep.Failed)
	}
	// build+docs, then test, then release fails and blocks announce.
	if rep.Rounds != 3 {
		t.Errorf("%d rounds, want 3", rep.Rounds)
	}
	got, err := os.ReadFile(filepath.Join(rep.Worktrees["builder"], "task-build.txt"))
	if err != nil || string(got) != "compile; rm -rf / by builder\n" {
		t.Errorf("builder's worktree has %q (%v), want the task written there with its prompt as text", got, err)
	}
	if _, err := os.Stat(filepath.Join(rep.Worktrees["tester"], "task-build.txt")); err == nil {
		t.Error("the tester's worktree sees the builder's file: the worktrees are not separate")
	}
	if _, err := os.Stat(filepath.Join(rep.Worktrees["tester"], "task-test.txt")); err != nil {
		t.Errorf("the tester's task did not run in its worktree: %v", err)
	}
	var board []boardEntry
	data, _ := os.ReadFile(filepath.Join(crew.Dir, rep.CrewID, "board.json"))
	if err := json.Unmarshal(data, &board); err != nil || len(board) != 5 {
		t.Fatalf("board.json: %v (%d entries)", err, len(board))
	}
	for _, e := range board {
		if e.ID == "release" && (e.State != TaskFailed || !strings.Contains(e.Output, "cannot do it")) {
			t.Errorf("release on the board: %+v", e)
		}
		if e.ID == "announce" && e.State != TaskBlocked {
			t.Errorf("announce on the board: %+v", e)
		}
	}
}

type countingRunner struct{ n int }

func (r *countingRunner) RunTask(context.Context, Profile, Task, string) (string, error) {
	r.n++
	return "", os.ErrPermission
}

func TestCrewRefusesAndCaps(t *testing.T) {
	repo := gitRepo(t)
	base := Crew{Profiles: []Profile{{Name: "solo"}}, Repo: repo, Dir: t.TempDir(), Runner: &countingRunner{}}
	bad := []struct {
		name  string
		crew  Crew
		tasks []Task
		has   string
	}{
		{"no profiles", Crew{Repo: repo, Dir: t.TempDir(), Runner: &countingRunner{}}, nil, "no teammates"},
		{"duplicate ids", base, []Task{{ID: "a"}, {ID: "a"}}, "used twice"},
		{"unknown dependency", base, []Task{{ID: "a", Deps: []string{"z"}}}, "not on the board"},
		{"unknown assignee", base, []Task{{ID: "a", Assign: "ghost"}}, "not on the crew"},
		{"not a repository", Crew{Profiles: base.Profiles, Repo: t.TempDir(), Dir: t.TempDir(), Runner: base.Runner}, []Task{{ID: "a"}}, "worktree"},
	}
	for _, tt := range bad {
		if _, err := tt.crew.Run(context.Background(), tt.tasks); err == nil || !strings.Contains(err.Error(), tt.has) {
			t.Errorf("%s: %v, want an error containing %q", tt.name, err, tt.has)
		}
	}
	// The round cap ends a run that still has work.
	r := &countingRunner{}
	capped := Crew{Profiles: base.Profiles, Repo: repo, Dir: t.TempDir(), Runner: r, MaxRounds: 2}
	rep, err := capped.Run(context.Background(), []Task{{ID: "a"}, {ID: "b"}, {ID: "c"}})
	if err != nil || rep.Rounds != 2 || r.n != 2 || len(rep.Failed) != 2 {
		t.Errorf("capped run: %+v, %v, %d runs; want 2 rounds, 2 failed and c never run", rep, err, r.n)
	}
}
