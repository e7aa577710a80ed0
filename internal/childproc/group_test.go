//go:build unix

package childproc

import (
	"bufio"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// Stop escalates: a child that ignores both its stdin closing and SIGTERM
// is killed with SIGKILL, and so is what it started in its group.
func TestGroupStopEscalates(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, script, want string
	}{
		{"exits when stdin closes", "echo ready; cat >/dev/null", "exit status 0"},
		{"exits on SIGTERM", "trap 'exit 3' TERM; echo ready; sleep 30 & wait", "exit status 3"},
		{"ignores SIGTERM", "trap '' TERM; echo ready; sleep 30 & wait; sleep 30", "signal: killed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command("sh", "-c", tc.script)
			OwnGroup(cmd)
			pipes, err := OpenPipes(cmd)
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				pipes.Close()
				t.Fatal(err)
			}
			pipes.CloseChildEnds()
			defer pipes.Close()
			g := NewGroup(cmd)
			exited := make(chan struct{})
			var status string
			go func() {
				status = ExitText(g.Reap())
				close(exited)
			}()
			// The script says ready once its trap is set.
			if line, err := bufio.NewReader(pipes.Stdout).ReadString('\n'); line != "ready\n" {
				t.Fatalf("the script did not say it was ready: %q, %v", line, err)
			}
			start := time.Now()
			g.Stop(pipes.Stdin, exited, 200*time.Millisecond, 300*time.Millisecond)
			<-exited
			if status != tc.want {
				t.Errorf("ended with %q, want %q", status, tc.want)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("took %v", d)
			}
			// Reap killed the group: sleep is gone, so stderr ends.
			buf := make([]byte, 1)
			if _, err := pipes.Stderr.Read(buf); err == nil {
				t.Error("stderr still open: a member of the group survived")
			}
			g.Signal(true) // after reaping: no signal, no panic
		})
	}
}

func TestExitText(t *testing.T) {
	t.Parallel()
	if got := ExitText(nil); got != "exit status 0" {
		t.Errorf("nil: %q", got)
	}
	if got := ExitText(exec.Command("sh", "-c", "exit 7").Run()); got != "exit status 7" {
		t.Errorf("exit 7: %q", got)
	}
	if got := ExitText(exec.Command("/nonexistent/x").Run()); !strings.Contains(got, "no such file") {
		t.Errorf("missing command: %q", got)
	}
}
