package tmuxterm

import (
	"strings"
	"testing"
	"time"
)

func TestTypeReadResizeExit(t *testing.T) {
	tm := Start(t, Options{Dir: t.TempDir(), Env: []string{"GREETING=hi"}},
		"sh", "-c", `echo "$GREETING ready"; read a; echo "got:$a"; read b; stty size; read c; exit 3`)
	tm.WaitText("hi ready", 30*time.Second)
	tm.Type("one two")
	tm.Keys("Enter")
	tm.WaitText("got:one two", 30*time.Second)
	tm.Resize(60, 20)
	if w, h := tm.Size(); w != 60 || h != 20 {
		t.Errorf("size after resize: %dx%d", w, h)
	}
	tm.Keys("Enter")
	tm.WaitText("20 60", 30*time.Second)
	tm.Paste("pasted")
	tm.Keys("Enter")
	tm.WaitFor("the exit", 30*time.Second, func(string) bool { dead, _ := tm.Exited(); return dead })
	if _, status := tm.Exited(); status != 3 {
		t.Errorf("exit status %d, want 3", status)
	}
	if s := tm.Screen(); !strings.Contains(s, "pasted") {
		t.Errorf("the paste is not on the screen:\n%s", s)
	}
}

// A program killed by a signal has no exit status: Exited gives 128 plus
// the signal, as a shell would.
func TestKilledBySignal(t *testing.T) {
	tm := Start(t, Options{Dir: t.TempDir()}, "sh", "-c", `echo up; kill -9 $$`)
	tm.WaitFor("the exit", 30*time.Second, func(string) bool { dead, _ := tm.Exited(); return dead })
	if _, status := tm.Exited(); status != 128+9 {
		t.Errorf("exit status %d, want %d", status, 128+9)
	}
}
