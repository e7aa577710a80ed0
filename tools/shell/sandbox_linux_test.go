//go:build linux

package shell

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/indusagi/induscode/internal/jail"
	"github.com/indusagi/induscode/internal/jail/jailtest"
	"github.com/indusagi/induscode/internal/testpeer"
	"github.com/indusagi/induscode/tool"
)

// confinedSession is a session whose engine runs workspace-write, where the
// system allows the mount tier (skipped elsewhere: the per-entry rules
// refuse new top-level entries, which the jail package's tests cover).
func confinedSession(t *testing.T) *tool.Env {
	t.Helper()
	if jail.Probe().ABI < 1 {
		t.Skip("no Landlock here")
	}
	if why := jail.MountTier(); why != nil {
		t.Skipf("no mount tier here: %v", why)
	}
	env := session(t)
	EngineOf(env).Confine(jail.ForMode(jail.WorkspaceWrite, env.Dir, t.TempDir()))
	return env
}

// Under workspace-write a command makes new top-level entries, and a
// protected one it made is moved away and named in the result.
func TestBashSandboxQuarantines(t *testing.T) {
	t.Parallel()
	env := confinedSession(t)
	r := call(t, BashTool(), env, map[string]any{"command": "touch newtop && mkdir build && echo '{}' > .mcp.json"})
	out := text(r)
	if r.IsError || !strings.Contains(out, "protected path .mcp.json, which was moved to .indusvx/quarantine/") {
		t.Fatalf("bash said:\n%s", out)
	}
	if _, err := os.Lstat(filepath.Join(env.Dir, ".mcp.json")); err == nil {
		t.Error(".mcp.json is still in the workspace")
	}
	for _, p := range []string{"newtop", "build"} {
		if _, err := os.Stat(filepath.Join(env.Dir, p)); err != nil {
			t.Errorf("the new top-level entry %s: %v", p, err)
		}
	}
}

// A background process's protected paths are swept when it is read, while
// it runs.
func TestProcessSandboxQuarantines(t *testing.T) {
	t.Parallel()
	env := confinedSession(t)
	id, _ := startBg(t, env, "mkdir -p .indus/addons/evil && echo made > made && exec sleep 300")
	waitFile(t, filepath.Join(env.Dir, "made"))
	out := proc(t, env, map[string]any{"action": "output", "id": id})
	if !strings.Contains(out, "protected path .indus, which was moved to") {
		t.Fatalf("output said:\n%s", out)
	}
	if _, err := os.Lstat(filepath.Join(env.Dir, ".indus")); err == nil {
		t.Error(".indus is still in the workspace")
	}
	if again := proc(t, env, map[string]any{"action": "output", "id": id}); strings.Contains(again, "protected path") {
		t.Errorf("the note came twice:\n%s", again)
	}
}

// The escape suite through each way this package starts a command: bash,
// a background process on pipes and one in a terminal of its own, in
// each sandboxed mode. Every socket family but Unix and the terminal
// ioctls are refused whatever the start path.
func TestEscapeSuiteThroughShell(t *testing.T) {
	if jail.Probe().ABI < 1 {
		if os.Getenv("CI") == "true" {
			t.Fatal("the sandbox tests need Landlock")
		}
		t.Skip("no Landlock here")
	}
	t.Parallel()
	for _, mode := range []jail.Mode{jail.ReadOnly, jail.WorkspaceWrite} {
		for _, how := range []string{"bash", "process", "process with a terminal"} {
			t.Run(string(mode)+", "+how, func(t *testing.T) {
				t.Parallel()
				s := jailtest.New(t)
				env := tool.NewEnv(s.Workspace)
				t.Cleanup(func() { env.Close() })
				EngineOf(env).Confine(jail.ForMode(mode, s.Workspace, t.TempDir()))
				attempts, escaped := s.Run(t, func(t testing.TB, command string) string {
					return runVia(t.(*testing.T), env, how, command)
				}, true, false)
				if len(escaped) != 0 || attempts < 40 {
					t.Fatalf("%d attempts, escapes: %v", attempts, escaped)
				}
			})
		}
	}
}

// runVia runs command through bash or the process tool and returns all it
// printed.
func runVia(t *testing.T, env *tool.Env, how, command string) string {
	if how == "bash" {
		return text(call(t, BashTool(), env, map[string]any{"command": command, "timeout_ms": 120000}))
	}
	start := map[string]any{"action": "start", "command": command}
	if how == "process with a terminal" {
		start["pty"], start["cols"] = true, maxCols
	}
	out, st := do(t, env, start)
	var all strings.Builder
	all.WriteString(out)
	for range 20 {
		if strings.Contains(all.String(), "@@attempt end") {
			break
		}
		more, _ := do(t, env, map[string]any{"action": "wait", "id": st.ID, "pattern": "@@attempt end", "timeout_ms": 30000})
		all.WriteString(more)
	}
	return all.String()
}

// A confined command that leaves its group, starts a session of its own
// and keeps forking does not outlive the command, in either mode: where
// user namespaces are allowed the command runs in a PID namespace of its
// own, which ends with it. The escapee rewrites a file in the command's
// temp folder every 10 ms while it lives.
func TestConfinedEscapeeEndsWithTheCommand(t *testing.T) {
	t.Parallel()
	for _, mode := range []jail.Mode{jail.ReadOnly, jail.WorkspaceWrite} {
		t.Run(string(mode), func(t *testing.T) {
			t.Parallel()
			confinedSession(t) // skips where the namespaces are not allowed
			env := session(t)
			temp := t.TempDir()
			EngineOf(env).Confine(jail.ForMode(mode, env.Dir, temp))
			alive := filepath.Join(temp, "alive")
			r := call(t, BashTool(), env, map[string]any{"command": `setsid sh -c 'while :; do (date +%s%N > "$TMPDIR/alive") & sleep 0.01; done' >/dev/null 2>&1 </dev/null &
sleep 0.3; echo "init $(readlink /proc/1/exe)"`})
			out := text(r)
			if _, err := os.Stat(alive); r.IsError || err != nil {
				t.Fatalf("the escapee never ran: %v\n%s", err, out)
			}
			// Dead, the escapee leaves the file as it is; alive, it
			// rewrites it a hundred times in a second, however loaded the
			// machine.
			before, _ := os.ReadFile(alive)
			time.Sleep(time.Second)
			after, _ := os.ReadFile(alive)
			if string(before) != string(after) {
				t.Fatalf("a process the command left behind still runs after it ended:\n%s", out)
			}
			if !strings.Contains(out, "init "+jail.Helper()+"\n") {
				t.Errorf("bash said (want the helper as the first process of the command's namespace):\n%s", out)
			}
		})
	}
}

// Through the PID namespace's helpers a command still ends as it ended:
// its exit code, or the signal that killed it; and Ctrl-C in its terminal
// still reaches the program in front.
func TestConfinedCommandEndsAsItEnded(t *testing.T) {
	t.Parallel()
	env := confinedSession(t)
	for cmd, want := range map[string]string{"exit 7": "exit code 7", "kill -TERM $$": "killed by SIGTERM", "kill -KILL $$": "killed by SIGKILL"} {
		if out := text(call(t, BashTool(), env, map[string]any{"command": cmd})); !strings.Contains(out, want) {
			t.Errorf("%s: %q, want %q", cmd, out, want)
		}
	}
	id := startPTY(t, env, "trap 'echo GOT-INT; exit 3' INT; echo READY; while :; do sleep 0.1; done", nil)
	do(t, env, map[string]any{"action": "wait", "id": id, "pattern": "READY", "timeout_ms": 30000})
	out, _ := do(t, env, map[string]any{"action": "input", "id": id, "keys": []string{"Ctrl-C"}, "pattern": "GOT-INT", "timeout_ms": 30000})
	if !strings.Contains(out, "GOT-INT") {
		t.Errorf("Ctrl-C did not reach the confined command in its terminal:\n%s", out)
	}
}

// git config under workspace-write is refused with the sandbox's note
// (a rename over a bound file fails with EBUSY), and a planted commondir
// is moved away with advice that does not send the model to the write
// tool, which refuses git paths too.
func TestGitConfigRefusedWithANote(t *testing.T) {
	testpeer.Command(t, "git", "install git")
	t.Parallel()
	env := confinedSession(t)
	if out, err := exec.Command("git", "init", "-q", env.Dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	out := text(call(t, BashTool(), env, map[string]any{"command": "git config core.fsmonitor ./x"}))
	if !strings.Contains(out, "[sandbox workspace-write:") {
		t.Errorf("git config: want the sandbox's note, got\n%s", out)
	}
	out = text(call(t, BashTool(), env, map[string]any{"command": "echo ../x > .git/commondir"}))
	if !strings.Contains(out, "protected path .git/commondir, which was moved to") || !strings.Contains(out, "ask the user") || strings.Contains(out, "write tool instead") {
		t.Errorf("a planted commondir: %s", out)
	}
}
