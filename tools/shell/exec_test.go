package shell

import (
	"context"
	"strings"
	"testing"
	"time"
)

func TestExecArgsArePositional(t *testing.T) {
	e := NewEngine(t.TempDir())
	defer e.Close()
	dir := t.TempDir()
	tests := []struct {
		name    string
		command string
		args    []string
		stdout  string
		code    int
	}{
		{"args stay words", `printf '[%s]' "$@"`, []string{`it's "quoted"`, "; touch pwned", "$(id)", "a b"}, `[it's "quoted"][; touch pwned][$(id)][a b]`, 0},
		{"count", `echo $#`, []string{"x", "", "y"}, "3\n", 0},
		{"exit code", `exit 7`, nil, "", 7},
		{"stderr apart", `echo out; echo err >&2`, nil, "out\n", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := e.Exec(context.Background(), tt.command, tt.args, dir, 0)
			if err != nil || r.Stdout != tt.stdout || r.Code != tt.code || r.Stopped != "" {
				t.Errorf("got %+v, %v; want stdout %q code %d", r, err, tt.stdout, tt.code)
			}
		})
	}
	if r, _ := e.Exec(context.Background(), `echo err >&2`, nil, dir, 0); r.Stderr != "err\n" {
		t.Errorf("stderr %q", r.Stderr)
	}
}

func TestExecTimeoutStopsGroup(t *testing.T) {
	e := NewEngine(t.TempDir())
	defer e.Close()
	start := time.Now()
	r, err := e.Exec(context.Background(), "sleep 30 & sleep 30; wait", nil, t.TempDir(), 200*time.Millisecond)
	if err != nil || r.Code != -1 || !strings.Contains(r.Stopped, "timed out") {
		t.Errorf("got %+v, %v; want a timeout", r, err)
	}
	if time.Since(start) > 5*time.Second {
		t.Errorf("took %s to stop", time.Since(start))
	}
}

func TestPrepareEnv(t *testing.T) {
	e := NewEngine(t.TempDir())
	defer e.Close()
	t.Setenv("DROP_ME", "secret")
	e.PrepareEnv(func(env map[string]string) map[string]string {
		delete(env, "DROP_ME")
		env["ADDED_BY_HOOK"] = "yes"
		return env
	})
	r, err := e.Exec(context.Background(), `echo "${DROP_ME:-gone} $ADDED_BY_HOOK $INDUSR"`, nil, t.TempDir(), 0)
	if err != nil || r.Stdout != "gone yes 1\n" {
		t.Errorf("got %q, %v; want the hook's environment", r.Stdout, err)
	}
	e.PrepareEnv(func(map[string]string) map[string]string { panic("bad hook") })
	r, err = e.Exec(context.Background(), `echo "$DROP_ME"`, nil, t.TempDir(), 0)
	if err != nil || r.Stdout != "secret\n" {
		t.Errorf("after a panicking hook got %q, %v; want the plain environment", r.Stdout, err)
	}
}

// ExecInput hands the command its stdin and extra variables, which win
// over the session's; a command that ignores a large stdin still ends.
func TestExecInputStdinAndEnv(t *testing.T) {
	e := NewEngine(t.TempDir())
	defer e.Close()
	dir := t.TempDir()
	t.Setenv("HOOK_VAR", "from the session")
	in := ExecInput{Stdin: []byte(`{"tool_name":"bash"}`), Env: []string{"HOOK_VAR=from the caller"}}
	r, err := e.ExecInput(context.Background(), `cat; echo " $HOOK_VAR"`, nil, dir, 0, in)
	if err != nil || r.Stdout != `{"tool_name":"bash"} from the caller`+"\n" || r.Code != 0 {
		t.Errorf("got %+v, %v", r, err)
	}
	big := ExecInput{Stdin: []byte(strings.Repeat("x", 4<<20))}
	start := time.Now()
	r, err = e.ExecInput(context.Background(), `exit 0`, nil, dir, 5*time.Second, big)
	if err != nil || r.Code != 0 || time.Since(start) > 3*time.Second {
		t.Errorf("a command that ignores 4 MiB of stdin: %+v, %v after %s", r, err, time.Since(start))
	}
}
