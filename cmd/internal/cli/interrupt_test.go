package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// An interrupt (what Main turns Ctrl-C into) cancels the running call, and
// run does not return before the deck is closed: the command, a child that
// ignores SIGTERM and a background process of the same session are gone.
func TestInterruptStopsEverythingBeforeExit(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	batch := `{"tool":"process","input":{"action":"start","command":"echo $$ >> bg.pid; exec sleep 300"}}
{"tool":"bash","input":{"command":"trap '' TERM; echo $$ > fg.pid; sleep 300 & echo $! >> fg.pid; wait"}}
`
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr bytes.Buffer
	code := make(chan int)
	go func() {
		code <- run(ctx, Program{}, []string{"-C", dir, "call", "--batch"}, strings.NewReader(batch), &stdout, &stderr)
	}()
	pids := waitPids(t, filepath.Join(dir, "fg.pid"), 2)
	pids = append(pids, waitPids(t, filepath.Join(dir, "bg.pid"), 1)...)
	start := time.Now()
	cancel()
	select {
	case c := <-code:
		if c != ExitToolError {
			t.Errorf("exit code %d, want %d; stdout:\n%s", c, ExitToolError, stdout.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("run did not return after the interrupt")
	}
	// What a user relies on: when indusr returns, nothing it started runs
	// on. One child ignores SIGTERM, so unless something else killed it
	// first, closing had to wait for the SIGKILL after the grace; checking
	// right at the return (a moment for the kernel to finish a teardown)
	// catches a Close that did not wait, without failing when the suite's
	// other processes make the timing differ.
	for _, pid := range pids {
		for deadline := time.Now().Add(300 * time.Millisecond); alive(pid); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Errorf("process %d outlived indusr (run returned %v after the interrupt)", pid, time.Since(start))
				break
			}
		}
	}
	if !strings.Contains(stdout.String(), `"line":2,"tool":"bash"`) || !strings.Contains(stdout.String(), "cancelled") {
		t.Errorf("the cancelled call should still report:\n%s", stdout.String())
	}
}

func waitPids(t *testing.T, path string, n int) []int {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, _ := os.ReadFile(path)
		if f := strings.Fields(string(b)); len(f) >= n && strings.HasSuffix(string(b), "\n") {
			var ps []int
			for _, s := range f {
				var p int
				fmt.Sscan(s, &p)
				ps = append(ps, p)
			}
			return ps
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %q", path, b)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// alive reports whether pid exists and is not a zombie.
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	state := s[strings.LastIndexByte(s, ')')+2]
	return state != 'Z' && state != 'X'
}

// An interrupt while an input call waits on a process in a terminal ends the wait
// (its result says it was cancelled) and, as the session closes, the
// terminal's whole process group, a child that ignores SIGHUP and SIGTERM
// included.
func TestInterruptKillsTerminalGroup(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// The pids are written after the input arrives, so the second call
	// is waiting when the interrupt comes.
	batch := `{"tool":"process","input":{"action":"start","pty":true,"command":"trap '' HUP TERM; read -r _; sleep 300 & echo $! >> pty.pid; echo $$ >> pty.pid; wait"}}
{"tool":"process","input":{"action":"input","id":"p1","text":"go\n","pattern":"never printed","timeout_ms":600000}}
`
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr bytes.Buffer
	code := make(chan int)
	go func() {
		code <- run(ctx, Program{}, []string{"-C", dir, "call", "--batch"}, strings.NewReader(batch), &stdout, &stderr)
	}()
	pids := waitPids(t, filepath.Join(dir, "pty.pid"), 2)
	cancel()
	select {
	case <-code:
	case <-time.After(15 * time.Second):
		t.Fatal("run did not return after the interrupt")
	}
	for _, pid := range pids {
		for deadline := time.Now().Add(time.Second); alive(pid); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Errorf("process %d of the terminal outlived indusr", pid)
				break
			}
		}
	}
	if out := stdout.String(); !strings.Contains(out, `"line":2,"tool":"process"`) || !strings.Contains(out, "cancelled") {
		t.Errorf("the cancelled wait should report:\n%s", out)
	}
}
