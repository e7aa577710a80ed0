package cli_test

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/indusagi/induscode/internal/testpeer"
)

// sleepers returns the pids of running "sleep ARG" processes.
func sleepers(arg string) []int {
	var out []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || string(b) != "sleep\x00"+arg+"\x00" {
			continue
		}
		if st, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); err == nil {
			s := string(st)
			if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) && s[i+2] == 'Z' {
				continue // a zombie is dead
			}
		}
		out = append(out, pid)
	}
	return out
}

// waitGone waits up to d for no "sleep ARG" to run; it reports the pids
// still there (and kills them, so a failed run leaves nothing behind).
func waitGone(arg string, d time.Duration) []int {
	for deadline := time.Now().Add(d); ; time.Sleep(50 * time.Millisecond) {
		left := sleepers(arg)
		if len(left) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			for _, p := range left {
				if proc, err := os.FindProcess(p); err == nil {
					proc.Kill()
				}
			}
			return left
		}
	}
}

// When indusr is killed with SIGKILL it cannot stop what it started. The
// child it started directly dies with it (parent-death signal); the rest
// of its process group, and a process that left the group with setsid,
// are killed by the next session that starts in the workspace.
func TestSIGKILLedSessionLeavesNoProcessBehind(t *testing.T) {
	testpeer.Command(t, "setsid", "install util-linux")
	t.Parallel()
	dir := t.TempDir()
	tag := fmt.Sprint(time.Now().UnixNano() % 1e6)
	leader, member, escapee := "901."+tag, "902."+tag, "903."+tag
	cmd := exec.Command("indusr", "-C", dir, "call", "--batch")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		for _, a := range []string{leader, member, escapee} {
			waitGone(a, 0)
		}
	})
	start := fmt.Sprintf(`{"tool":"process","input":{"action":"start","command":"sleep %s & setsid sleep %s & exec sleep %s"}}`+"\n", member, escapee, leader)
	if _, err := io.WriteString(stdin, start); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); len(sleepers(leader)) == 0 || len(sleepers(member)) == 0 || len(sleepers(escapee)) == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the processes never started")
		}
	}
	// stdin stays open: indusr is mid-session when it is killed.
	cmd.Process.Kill()
	cmd.Wait()
	if left := waitGone(leader, 2*time.Second); left != nil {
		t.Errorf("the child indusr started (sleep %s, pid %v) outlived it", leader, left)
	}
	next := exec.Command("indusr", "-C", dir, "call", "ls")
	if out, err := next.CombinedOutput(); err != nil {
		t.Fatalf("the next session: %v\n%s", err, out)
	}
	for _, a := range []string{member, escapee} {
		if left := waitGone(a, 2*time.Second); left != nil {
			t.Errorf("sleep %s (pid %v) outlived the next session start", a, left)
		}
	}
}
