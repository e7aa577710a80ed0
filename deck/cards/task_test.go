package cards

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/indusagi/induscode/internal/childproc"
	"github.com/indusagi/induscode/internal/testpeer"
	"github.com/indusagi/induscode/tool"
	"github.com/indusagi/induscode/workspace"
)

func shRunner(t *testing.T, timeout time.Duration, script string) *CommandRunner {
	t.Helper()
	sh := testpeer.Command(t, "sh", "install a POSIX shell")
	return &CommandRunner{
		Roster: []CommandAgent{
			{Name: "echo", Description: "prints its objective", Argv: []string{sh, "-c", script, "agent", "{objective}", "{agent}"}},
			{Name: "ctx", Description: "prints objective and context apart", Argv: []string{sh, "-c", `printf '%s|%s' "$1" "$2"`, "x", "{objective}", "{context}"}},
		},
		Dir:     t.TempDir(),
		Timeout: timeout,
	}
}

func TestTaskRunsTheCommandAgent(t *testing.T) {
	t.Parallel()
	r := shRunner(t, 10*time.Second, `printf 'working on: %s as %s\n' "$1" "$2"; printf 'done\n'`)
	card := Task(r)
	if d := card.Spec().Description; !strings.Contains(d, "Agents: echo (prints its objective); ctx (prints objective and context apart).") {
		t.Errorf("description lacks the roster: %s", d)
	}
	env := tool.NewEnv(t.TempDir())
	var mu sync.Mutex
	var progress []string
	ctx := tool.WithProgress(context.Background(), func(_, _ float64, m string) { mu.Lock(); progress = append(progress, m); mu.Unlock() })
	// An objective with shell syntax reaches the agent as one argument.
	res := runCtx(t, ctx, card, env, map[string]any{"objective": `fix it; rm -rf "$HOME" $(id)`})
	if res.IsError || text(res) != "working on: fix it; rm -rf \"$HOME\" $(id) as echo\ndone\n" {
		t.Errorf("result: %q", text(res))
	}
	mu.Lock()
	if strings.Join(progress, "|") != `working on: fix it; rm -rf "$HOME" $(id) as echo|done` {
		t.Errorf("progress lines: %q", progress)
	}
	mu.Unlock()
	for _, tc := range []struct {
		name  string
		in    map[string]any
		isErr bool
		want  string
	}{
		{"context in its own slot", map[string]any{"objective": "o", "agent": "ctx", "context": "c"}, false, "o|c"},
		{"unknown agent", map[string]any{"objective": "o", "agent": "gpt"}, true, `no agent named "gpt"; choose one of: echo, ctx`},
		{"empty objective", map[string]any{"objective": "  "}, true, "objective is empty"},
		{"missing objective", map[string]any{}, true, "objective"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := run(t, card, env, tc.in)
			if r.IsError != tc.isErr || !strings.Contains(text(r), tc.want) {
				t.Errorf("is_error=%v %q; want is_error=%v and %q", r.IsError, text(r), tc.isErr, tc.want)
			}
		})
	}
	// Without a {context} slot the context rides on the objective.
	a := CommandAgent{Name: "n", Argv: []string{"x", "-p", "{objective}"}}
	if got := a.expand(Delegation{Objective: "o", Context: "c"}); got[2] != "o\n\nContext:\nc" {
		t.Errorf("expand = %q", got)
	}
}

func TestCommandRunnerFailures(t *testing.T) {
	t.Parallel()
	env := tool.NewEnv(t.TempDir())
	// A killed group never leaves the agent's child behind: the child
	// would hold the output pipe, and outlive the call.
	for _, tc := range []struct {
		name    string
		timeout time.Duration
		cancel  time.Duration
		want    string
	}{
		{"timeout kills the group", 300 * time.Millisecond, 0, "agent echo timed out after 300ms and was stopped"},
		{"cancel kills the group", time.Minute, 300 * time.Millisecond, "agent echo was cancelled and stopped"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			pidFile := filepath.Join(t.TempDir(), "pid")
			card := Task(shRunner(t, tc.timeout, `echo started; sleep 30 & echo $! > `+pidFile+`; wait`))
			ctx := context.Background()
			if tc.cancel > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tc.cancel)
				defer cancel()
			}
			start := time.Now()
			r := runCtx(t, ctx, card, env, map[string]any{"objective": "o"})
			if !r.IsError || !strings.Contains(text(r), tc.want) || !strings.Contains(text(r), "started") {
				t.Errorf("%q", text(r))
			}
			if el := time.Since(start); el > 10*time.Second {
				t.Errorf("the call took %s to end", el)
			}
			b, err := os.ReadFile(pidFile)
			if err != nil {
				t.Fatalf("the agent never started its child: %v", err)
			}
			pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
			for deadline := time.Now().Add(5 * time.Second); processAlive(pid); time.Sleep(20 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("the agent's child %d outlived the call", pid)
				}
			}
		})
	}
	t.Run("exit status", func(t *testing.T) {
		t.Parallel()
		r := run(t, Task(shRunner(t, time.Minute, `echo oops >&2; exit 3`)), env, map[string]any{"objective": "o"})
		if !r.IsError || !strings.Contains(text(r), "agent echo exited with exit status 3") || !strings.Contains(text(r), "oops") {
			t.Errorf("%q", text(r))
		}
	})
	t.Run("missing command", func(t *testing.T) {
		t.Parallel()
		rn := &CommandRunner{Roster: []CommandAgent{{Name: "ghost", Argv: []string{"/nonexistent/agent-cli", "{objective}"}}}}
		r := run(t, Task(rn), env, map[string]any{"objective": "o"})
		if !r.IsError || !strings.Contains(text(r), "cannot run agent ghost (/nonexistent/agent-cli)") {
			t.Errorf("%q", text(r))
		}
	})
	t.Run("long output keeps head and tail", func(t *testing.T) {
		t.Parallel()
		r := run(t, Task(shRunner(t, time.Minute, `echo FIRST; i=0; while [ $i -lt 3000 ]; do echo "line $i of filler text"; i=$((i+1)); done; echo LAST`)), env, map[string]any{"objective": "o"})
		out := text(r)
		if r.IsError || !strings.HasPrefix(out, "FIRST\n") || !strings.HasSuffix(out, "LAST\n") || !strings.Contains(out, "bytes of output omitted") {
			t.Errorf("head/tail capture wrong (%d bytes): %.200q … %q", len(out), out, out[max(0, len(out)-100):])
		}
		if len(out) > delegateHead+delegateTail+100 {
			t.Errorf("output is %d bytes", len(out))
		}
	})
}

func runCtx(t *testing.T, ctx context.Context, tl tool.Tool, env *tool.Env, in map[string]any) tool.Result {
	t.Helper()
	raw, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	return tl.Run(ctx, raw, env)
}

// A delegated agent is a child of the session like the bash tool's: it
// carries the session's token (what the next session start looks for
// after a SIGKILL) and its group is recorded under the workspace.
func TestCommandRunnerAgentsAreWarded(t *testing.T) {
	t.Parallel()
	r := shRunner(t, 10*time.Second, `printf '%s' "$`+childproc.EnvVar+`"`)
	out, err := r.Run(context.Background(), Delegation{Objective: "o"})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 24 {
		t.Errorf("the agent's %s is %q, want the session's token", childproc.EnvVar, out)
	}
	records, _ := filepath.Glob(filepath.Join(workspace.At(r.Dir).Procs(), "*.json"))
	if len(records) != 1 {
		t.Fatalf("records %v, want one", records)
	}
	b, _ := os.ReadFile(records[0])
	if !strings.Contains(string(b), out) {
		t.Errorf("record %s does not carry the token %s", b, out)
	}
}
