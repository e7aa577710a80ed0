// Package tmuxterm runs a terminal program in a real terminal for tests:
// a tmux server of the test's own (its socket in a temp folder, no user
// configuration, no status line, so the pane is the whole window) runs the
// program in one pane; Type and Keys send what a user would press, Paste
// sends a bracketed paste, Screen reads what the pane shows, Resize
// changes its size. Tests only; a missing tmux skips the test, or fails it
// under CI=true (see internal/testpeer).
package tmuxterm

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/indusagi/induscode/internal/testpeer"
)

// conf is the server's whole configuration: no status line (every row is
// the program's), Esc passed at once, the pane kept after the program
// exits so its last screen and status can be read. (Resize makes the
// window's size manual; setting window-size manual in the file stops a
// detached server from starting, in tmux 3.3.)
const conf = `set -g status off
set -s escape-time 0
set -g remain-on-exit on
set -g history-limit 5000
set -g default-terminal "tmux-256color"
`

// Options say how to start the program.
type Options struct {
	Dir           string   // its working folder
	Env           []string // KEY=VALUE added to a minimal environment
	Width, Height int      // 80x24 when zero
}

// Term is one program running in a tmux pane.
type Term struct {
	t      testing.TB
	tmux   string
	socket string
	target string
}

// Start runs argv in a new pane and stops the tmux server when the test
// ends. The program's environment is PATH, HOME, LANG and Options.Env.
func Start(t testing.TB, opts Options, argv ...string) *Term {
	t.Helper()
	bin := testpeer.Command(t, "tmux", "install the Debian package tmux (scripts/test does)")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "tmux.conf"), []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	w, h := opts.Width, opts.Height
	if w == 0 {
		w, h = 80, 24
	}
	tm := &Term{t: t, tmux: bin, socket: filepath.Join(dir, "sock"), target: "t:0.0"}
	args := []string{"-f", filepath.Join(dir, "tmux.conf"), "new-session", "-d", "-s", "t",
		"-x", fmt.Sprint(w), "-y", fmt.Sprint(h)}
	if opts.Dir != "" {
		args = append(args, "-c", opts.Dir)
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "LANG=C.UTF-8"}
	// The program runs through env -i so that nothing of the test's own
	// environment (or the tmux server's) leaks into it but what is listed.
	envArgs := append([]string{"env", "-i", "TERM=tmux-256color"}, env...)
	envArgs = append(envArgs, opts.Env...)
	args = append(args, "--")
	args = append(args, envArgs...)
	args = append(args, argv...)
	tm.run(args...)
	pid := tm.PID()
	// Cleanups run last first, so this one runs before the removal of the
	// folders the test made before Start: the program must be gone by
	// then, not still writing its caches into them.
	t.Cleanup(func() {
		exec.Command(bin, "-S", tm.socket, "kill-server").Run()
		waitGone(pid, 30*time.Second)
	})
	return tm
}

func (tm *Term) run(args ...string) string {
	tm.t.Helper()
	cmd := exec.Command(tm.tmux, append([]string{"-S", tm.socket}, args...)...)
	cmd.Env = append(os.Environ(), "TMUX=")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		tm.t.Fatalf("tmux %s: %v: %s", strings.Join(args, " "), err, errb.String())
	}
	return out.String()
}

// Type sends text literally, as typed keys (a newline is not Enter: use
// Keys("Enter")).
func (tm *Term) Type(text string) {
	tm.t.Helper()
	tm.run("send-keys", "-t", tm.target, "-l", "--", text)
}

// Keys sends named keys in tmux's names: Enter, Escape, BTab (Shift-Tab),
// C-c, C-j, C-r, Up, Down, Tab, BSpace.
func (tm *Term) Keys(names ...string) {
	tm.t.Helper()
	tm.run(append([]string{"send-keys", "-t", tm.target, "--"}, names...)...)
}

// Paste sends text as a terminal paste (bracketed when the program asked
// for bracketed pastes, as a terminal would).
func (tm *Term) Paste(text string) {
	tm.t.Helper()
	tm.run("set-buffer", "-b", "paste", "--", text)
	tm.run("paste-buffer", "-p", "-d", "-b", "paste", "-t", tm.target)
}

// Resize makes the window w columns by h rows; the program gets SIGWINCH.
func (tm *Term) Resize(w, h int) {
	tm.t.Helper()
	tm.run("resize-window", "-t", "t", "-x", fmt.Sprint(w), "-y", fmt.Sprint(h))
}

// Screen is the visible text of the pane, one line per row, trailing
// blanks cut.
func (tm *Term) Screen() string {
	tm.t.Helper()
	return tm.run("capture-pane", "-p", "-t", tm.target)
}

// Lines are the visible rows with each row the terminal wrapped joined
// back to the line the program wrote: a line wider than the pane shows as
// one line longer than the width.
func (tm *Term) Lines() []string {
	tm.t.Helper()
	return strings.Split(strings.TrimRight(tm.run("capture-pane", "-p", "-J", "-t", tm.target), "\n"), "\n")
}

// ScreenANSI is the visible pane with its colours and attributes as
// escape sequences (for a screenshot).
func (tm *Term) ScreenANSI() string {
	tm.t.Helper()
	return tm.run("capture-pane", "-p", "-e", "-t", tm.target)
}

// Size is the pane's columns and rows as tmux has them.
func (tm *Term) Size() (w, h int) {
	tm.t.Helper()
	fmt.Sscanf(tm.run("display-message", "-p", "-t", tm.target, "#{pane_width} #{pane_height}"), "%d %d", &w, &h)
	return w, h
}

// Exited reports whether the program has ended, and its exit status
// (128 plus the signal for one killed by a signal). tmux marks a pane dead
// when its terminal closes, which can be before it has reaped the
// program; until the status is known the program counts as running.
func (tm *Term) Exited() (bool, int) {
	tm.t.Helper()
	f := strings.Split(tm.run("display-message", "-p", "-t", tm.target, "#{pane_dead}|#{pane_dead_status}|#{pane_dead_signal}"), "|")
	if len(f) != 3 || strings.TrimSpace(f[0]) != "1" {
		return false, 0
	}
	if n, err := strconv.Atoi(strings.TrimSpace(f[1])); err == nil {
		return true, n
	}
	if n, err := strconv.Atoi(strings.TrimSpace(f[2])); err == nil {
		return true, 128 + n
	}
	return false, 0
}

// PID is the program's process id.
func (tm *Term) PID() int {
	tm.t.Helper()
	var pid int
	fmt.Sscanf(tm.run("display-message", "-p", "-t", tm.target, "#{pane_pid}"), "%d", &pid)
	return pid
}

// WaitFor polls the screen until ok holds of it, failing the test with the
// last screen after limit. The limit is generous: it bounds a hang, not a
// speed, on a loaded machine.
func (tm *Term) WaitFor(what string, limit time.Duration, ok func(screen string) bool) string {
	tm.t.Helper()
	deadline := time.Now().Add(limit)
	for {
		s := tm.Screen()
		if ok(s) {
			return s
		}
		if time.Now().After(deadline) {
			tm.t.Fatalf("waited %v for %s; the screen:\n%s", limit, what, s)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// WaitText waits until the screen shows text.
func (tm *Term) WaitText(text string, limit time.Duration) string {
	tm.t.Helper()
	return tm.WaitFor(fmt.Sprintf("%q on the screen", text), limit, func(s string) bool { return strings.Contains(s, text) })
}
