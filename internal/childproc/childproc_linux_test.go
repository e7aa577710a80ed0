package childproc

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// Reap kills the processes of a session whose owner is gone, and leaves
// those of a live owner (and its record) alone.
func TestReapKillsOnlyWhatDeadOwnersLeft(t *testing.T) {
	t.Parallel()
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Skip(err)
	}
	cases := []struct {
		name       string
		owner      int
		ownerStart string
		killed     bool
	}{
		{"owner alive", os.Getpid(), startTime(os.Getpid()), false},
		{"owner gone", dead.Process.Pid, "", true},
		{"pid reused by another process", os.Getpid(), "1", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			w := NewWard("")
			cmd := exec.Command("sleep", "30")
			w.Prepare(cmd)
			release, err := w.Start(cmd, false)
			if err != nil {
				t.Fatal(err)
			}
			exited := make(chan struct{})
			go func() { cmd.Wait(); release(); close(exited) }()
			t.Cleanup(func() { cmd.Process.Kill(); <-exited })
			rec := filepath.Join(dir, "x.json")
			b, _ := json.Marshal(record{Owner: c.owner, OwnerStart: c.ownerStart, Token: w.token})
			os.WriteFile(rec, b, 0o600)
			Reap(dir)
			select {
			case <-exited:
				if !c.killed {
					t.Error("a live session's process was killed")
				}
			case <-time.After(time.Second):
				if c.killed {
					t.Error("the process of a dead session survived Reap")
				}
			}
			if _, err := os.Stat(rec); (err == nil) == c.killed {
				t.Errorf("record kept: %v, want %v", err == nil, !c.killed)
			}
		})
	}
}
