//go:build unix

package tui_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/indusagi/induscode/internal/fakemodel"
)

// The agent in a real (pseudo-)terminal: indusr-agent alone opens the
// conversation, a prompt gets its answer, an edit is asked about and
// approved (the file changes and the diff shows), and Ctrl-C twice
// leaves the alternate screen.
func TestTerminalEditApproved(t *testing.T) {
	if testing.Short() {
		t.Skip("builds indusr-agent")
	}
	agent := buildAgent(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "greet.txt"), []byte("hello world\n"), 0o644)
	srv := fakemodel.Start(t,
		fakemodel.Call("read", `{"path":"greet.txt"}`),
		fakemodel.Call("edit", `{"path":"greet.txt","old_string":"world","new_string":"there"}`),
		fakemodel.Say("Changed **world** to there."))
	x := startTerm(t, dir, agentEnv(t, srv.URL), 80, 24, agent)
	x.waitFor("the input", 30*time.Second, func(s string) bool { return strings.Contains(s, "Ask for a change") })
	x.send("change world to there\r")
	x.waitFor("the permission question", 30*time.Second, func(s string) bool { return strings.Contains(s, "Permission: edit") })
	if b, _ := os.ReadFile(filepath.Join(dir, "greet.txt")); string(b) != "hello world\n" {
		t.Fatalf("the file changed before the answer: %q", b)
	}
	x.send("1")
	x.waitFor("the answer", 30*time.Second, func(s string) bool { return strings.Contains(s, "Changed world to there") })
	if b, _ := os.ReadFile(filepath.Join(dir, "greet.txt")); string(b) != "hello there\n" {
		t.Errorf("the approved edit left %q", b)
	}
	s := x.text()
	for _, want := range []string{"-hello world", "+hello there", "● edit greet.txt"} {
		if !strings.Contains(s, want) {
			t.Errorf("the screen lacks %q:\n%s", want, s)
		}
	}
	x.send("\x03")
	x.waitFor("the quit hint", 10*time.Second, func(s string) bool { return strings.Contains(s, "Ctrl-C again") })
	x.send("\x03")
	select {
	case <-x.exited:
	case <-time.After(20 * time.Second):
		t.Fatalf("two Ctrl-C did not quit:\n%s", x.text())
	}
	if s := x.text(); strings.Contains(s, "Ask for a change") {
		t.Errorf("the alternate screen was left on screen:\n%s", s)
	}
}
