package agents

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/indusagi/induscode/addons"
	"github.com/indusagi/induscode/internal/atomicfile"
)

// MaxRounds bounds a crew run: 64 rounds is far more
// than a task graph written by hand needs, and stops a board whose tasks
// keep failing from spinning forever.
const MaxRounds = 64

// Task is one unit of work posted to a crew's board.
type Task struct {
	ID     string   `json:"id" toml:"id"`
	Prompt string   `json:"prompt" toml:"prompt"`
	Deps   []string `json:"deps,omitempty" toml:"deps"`     // ids that must complete first
	Assign string   `json:"assign,omitempty" toml:"assign"` // a profile name; "" lets any teammate claim it
}

// TaskState is where a task stands on the board.
type TaskState string

// The task states.
const (
	TaskOpen    TaskState = "open"
	TaskDone    TaskState = "done"
	TaskFailed  TaskState = "failed"
	TaskBlocked TaskState = "blocked" // a dependency failed, so it never ran
)

// TeammateRunner runs one task for one teammate in the teammate's own
// worktree and says how it went. Output is kept on the board.
type TeammateRunner interface {
	RunTask(ctx context.Context, p Profile, t Task, dir string) (output string, err error)
}

// CommandRunner runs each task as a shell command through an exec
// handle (the session's shell engine): Command sees the task id, the
// prompt and the profile name as "$1", "$2" and "$3", never spliced into
// its text, and runs in the teammate's worktree. A non-zero exit fails
// the task.
type CommandRunner struct {
	Command string
	Exec    func(ctx context.Context, command string, args []string) (addons.ExecOutcome, error)
}

// RunTask runs c.Command for t.
func (c CommandRunner) RunTask(ctx context.Context, p Profile, t Task, dir string) (string, error) {
	if c.Exec == nil {
		return "", errors.New("the crew has no exec handle to run teammates with")
	}
	out, err := c.Exec(ctx, `cd "$4" && `+c.Command, []string{t.ID, t.Prompt, p.Name, dir})
	text := out.Stdout + out.Stderr
	if err != nil {
		return text, err
	}
	if out.Code != 0 {
		return text, fmt.Errorf("the teammate command exited with code %d", out.Code)
	}
	return text, nil
}

// Crew runs tasks with a roster of subagent profiles, each teammate in a
// git worktree of its own (see [Crew.Run]).
type Crew struct {
	// Profiles are the teammates, one per profile.
	Profiles []Profile
	// Repo is the git repository the worktrees branch from.
	Repo string
	// Dir holds the crews: each run gets Dir/<crew id>/ with one worktree
	// per teammate and board.json.
	Dir string
	// Runner runs the tasks.
	Runner TeammateRunner
	// MaxRounds replaces the MaxRounds cap when positive.
	MaxRounds int
}

// Report is the outcome of a crew run.
type Report struct {
	CrewID    string            `json:"crewId"`
	Completed []string          `json:"completed"`
	Failed    []string          `json:"failed"` // failed or blocked by a failed dependency
	Rounds    int               `json:"rounds"`
	Worktrees map[string]string `json:"worktrees"` // profile name -> worktree
	// Branches are the teammates' branches (profile name -> branch):
	// each completed task that changed files is one commit on its
	// teammate's branch, for the user to inspect and merge.
	Branches map[string]string `json:"branches"`
	// Tasks are the board's entries as the run left them, in order.
	Tasks []TaskOutcome `json:"tasks"`
}

// TaskOutcome is one task as a crew run left it.
type TaskOutcome struct {
	ID     string    `json:"id"`
	State  TaskState `json:"state"`
	By     string    `json:"by,omitempty"`
	Output string    `json:"output,omitempty"`
	Error  string    `json:"error,omitempty"`
	Commit string    `json:"commit,omitempty"`
}

// boardEntry is one task on the board with its state.
type boardEntry struct {
	Task
	State  TaskState `json:"state"`
	By     string    `json:"by,omitempty"`
	Output string    `json:"output,omitempty"`
	Error  string    `json:"error,omitempty"`
	Round  int       `json:"round,omitempty"`
	Commit string    `json:"commit,omitempty"`
}

// Run enrolls the profiles, posts tasks and runs rounds: in each round
// every teammate claims at most one ready task (dependencies done, and
// assigned to it or to anyone), and the claimed tasks run at once, one
// per teammate. The run ends when the board is quiet (no ready task
// left) or after MaxRounds rounds. A task whose dependency failed is
// blocked. An error is returned only for a run that could not start
// (no profiles, a bad task list, a worktree git refused).
func (c *Crew) Run(ctx context.Context, tasks []Task) (*Report, error) {
	if len(c.Profiles) == 0 {
		return nil, errors.New("crew: no teammates: add profiles under " + Dir)
	}
	if c.Runner == nil {
		return nil, errors.New("crew: no teammate runner")
	}
	board, err := newBoard(tasks)
	if err != nil {
		return nil, err
	}
	for _, e := range board.entries {
		if e.Assign != "" && !slices.ContainsFunc(c.Profiles, func(p Profile) bool { return p.Name == e.Assign }) {
			return nil, fmt.Errorf("crew: task %q is assigned to %q, who is not on the crew", e.ID, e.Assign)
		}
	}
	id := strings.ToLower(ulid.Make().String())
	home := filepath.Join(c.Dir, id)
	if err := os.MkdirAll(home, 0o755); err != nil {
		return nil, fmt.Errorf("crew: %w", err)
	}
	rep := &Report{CrewID: id, Completed: []string{}, Failed: []string{}, Worktrees: map[string]string{}, Branches: map[string]string{}}
	for _, p := range c.Profiles {
		wt := filepath.Join(home, p.Name)
		branch := "crew/" + id + "/" + p.Name
		if err := git(ctx, c.Repo, "worktree", "add", "--quiet", "-b", branch, wt, "HEAD"); err != nil {
			return nil, fmt.Errorf("crew: worktree for %s: %w", p.Name, err)
		}
		rep.Worktrees[p.Name], rep.Branches[p.Name] = wt, branch
	}
	limit := c.MaxRounds
	if limit <= 0 {
		limit = MaxRounds
	}
	for rep.Rounds < limit && ctx.Err() == nil {
		claims := board.claim(c.Profiles)
		if len(claims) == 0 {
			break // quiet
		}
		rep.Rounds++
		var wg sync.WaitGroup
		for _, cl := range claims {
			wg.Add(1)
			go func() {
				defer wg.Done()
				wt := rep.Worktrees[cl.p.Name]
				out, err := runSafely(ctx, c.Runner, cl.p, cl.e.Task, wt)
				commit := ""
				if err == nil {
					// The teammate's work is a commit on its branch; a
					// commit git refuses fails the task.
					commit, err = commitTask(ctx, wt, cl.p.Name, cl.e.Task)
				}
				board.finish(cl.e, cl.p.Name, rep.Rounds, out, commit, err)
			}()
		}
		wg.Wait()
		board.block()
		if err := board.save(filepath.Join(home, "board.json")); err != nil {
			return nil, fmt.Errorf("crew: saving the board: %w", err)
		}
	}
	for _, e := range board.entries {
		rep.Tasks = append(rep.Tasks, TaskOutcome{ID: e.ID, State: e.State, By: e.By, Output: e.Output, Error: e.Error, Commit: e.Commit})
		switch e.State {
		case TaskDone:
			rep.Completed = append(rep.Completed, e.ID)
		case TaskFailed, TaskBlocked:
			rep.Failed = append(rep.Failed, e.ID)
		}
	}
	return rep, ctx.Err()
}

func runSafely(ctx context.Context, r TeammateRunner, p Profile, t Task, dir string) (out string, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("the teammate runner panicked: %v", v)
		}
	}()
	return r.RunTask(ctx, p, t, dir)
}

// gitTimeout bounds one git command of the crew's setup.
const gitTimeout = time.Minute

func git(ctx context.Context, repo string, args ...string) error {
	_, err := gitOut(ctx, repo, nil, args...)
	return err
}

func gitOut(ctx context.Context, repo string, env []string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", repo}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return strings.TrimSpace(string(out)), nil
}

// commitTask commits what the teammate changed in its worktree for t, and
// returns the commit ("" when nothing changed). Where git knows no
// author, the crew signs as itself.
func commitTask(ctx context.Context, wt, teammate string, t Task) (string, error) {
	if err := git(ctx, wt, "add", "-A"); err != nil {
		return "", err
	}
	if _, err := gitOut(ctx, wt, nil, "diff", "--cached", "--quiet"); err == nil {
		return "", nil // nothing staged
	}
	var env []string
	if who, _ := gitOut(ctx, wt, nil, "config", "user.email"); who == "" {
		env = []string{"GIT_AUTHOR_NAME=indusr crew", "GIT_AUTHOR_EMAIL=crew@indusr.invalid",
			"GIT_COMMITTER_NAME=indusr crew", "GIT_COMMITTER_EMAIL=crew@indusr.invalid"}
	}
	title, _, _ := strings.Cut(strings.TrimSpace(t.Prompt), "\n")
	if len(title) > 60 {
		title = title[:60] + "…"
	}
	msg := fmt.Sprintf("crew task %s (%s): %s", t.ID, teammate, title)
	if _, err := gitOut(ctx, wt, env, "commit", "-q", "--no-verify", "-m", msg); err != nil {
		return "", err
	}
	return gitOut(ctx, wt, nil, "rev-parse", "HEAD")
}

type board struct {
	mu      sync.Mutex
	entries []*boardEntry
	byID    map[string]*boardEntry
}

func newBoard(tasks []Task) (*board, error) {
	b := &board{byID: map[string]*boardEntry{}}
	for _, t := range tasks {
		if strings.TrimSpace(t.ID) == "" {
			return nil, errors.New("crew: a task has no id")
		}
		if _, dup := b.byID[t.ID]; dup {
			return nil, fmt.Errorf("crew: task id %q is used twice", t.ID)
		}
		e := &boardEntry{Task: t, State: TaskOpen}
		b.entries = append(b.entries, e)
		b.byID[t.ID] = e
	}
	for _, e := range b.entries {
		for _, d := range e.Deps {
			if _, ok := b.byID[d]; !ok {
				return nil, fmt.Errorf("crew: task %q depends on %q, which is not on the board", e.ID, d)
			}
		}
	}
	return b, nil
}

type claim struct {
	p Profile
	e *boardEntry
}

// claim gives each teammate, in roster order, the first ready task it
// may take.
func (b *board) claim(team []Profile) []claim {
	b.mu.Lock()
	defer b.mu.Unlock()
	taken := map[*boardEntry]bool{}
	var out []claim
	for _, p := range team {
		for _, e := range b.entries {
			if taken[e] || e.State != TaskOpen || (e.Assign != "" && e.Assign != p.Name) || !b.ready(e) {
				continue
			}
			taken[e] = true
			out = append(out, claim{p: p, e: e})
			break
		}
	}
	return out
}

func (b *board) ready(e *boardEntry) bool {
	for _, d := range e.Deps {
		if b.byID[d].State != TaskDone {
			return false
		}
	}
	return true
}

func (b *board) finish(e *boardEntry, by string, round int, out, commit string, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	e.By, e.Round, e.Output, e.State, e.Commit = by, round, out, TaskDone, commit
	if err != nil {
		e.State, e.Error = TaskFailed, err.Error()
	}
}

// block marks open tasks whose dependency failed or was blocked, until
// nothing changes.
func (b *board) block() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for changed := true; changed; {
		changed = false
		for _, e := range b.entries {
			if e.State != TaskOpen {
				continue
			}
			if slices.ContainsFunc(e.Deps, func(d string) bool {
				s := b.byID[d].State
				return s == TaskFailed || s == TaskBlocked
			}) {
				e.State, e.Error, changed = TaskBlocked, "a dependency failed", true
			}
		}
	}
}

func (b *board) save(path string) error {
	b.mu.Lock()
	data, err := json.MarshalIndent(b.entries, "", "  ")
	b.mu.Unlock()
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, append(data, '\n'), 0o644)
}
