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
