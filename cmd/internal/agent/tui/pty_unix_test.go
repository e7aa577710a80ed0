//go:build unix

package tui_test

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/indusagi/induscode/internal/termtext"
)

// term is a program in a pseudo-terminal whose output goes through a
// terminal emulator, so a test reads the screen a user would see.
type term struct {
	t      testing.TB
	cmd    *exec.Cmd
	f      *os.File
	mu     sync.Mutex
	screen *termtext.Screen
	wrote  chan struct{} // a token after each write to the screen
	exited chan struct{}
}

// startTerm runs argv in a cols x rows terminal with env.
func startTerm(t testing.TB, dir string, env []string, cols, rows int, argv ...string) *term {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = dir, env
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: uint16(cols), Rows: uint16(rows)})
	if err != nil {
		t.Fatal(err)
	}
	x := &term{t: t, cmd: cmd, f: f, wrote: make(chan struct{}, 1), exited: make(chan struct{})}
	// The emulator answers the program's queries (cursor position,
	// colours) through the terminal, as a real one does.
	x.screen = termtext.New(cols, rows, 0, func(b []byte) { f.Write(b) })
	go func() {
		buf := make([]byte, 64<<10)
		for {
			n, err := f.Read(buf)
			if n > 0 {
				x.mu.Lock()
				x.screen.Write(buf[:n])
				x.mu.Unlock()
				select {
				case x.wrote <- struct{}{}:
				default:
				}
			}
			if err != nil {
				return
			}
		}
	}()
	go func() { cmd.Wait(); close(x.exited) }()
	t.Cleanup(func() {
		select {
		case <-x.exited:
		default:
			cmd.Process.Kill()
			<-x.exited
		}
		f.Close()
	})
	return x
}

func (x *term) text() string {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.screen.Text()
}

func (x *term) send(s string) {
	if _, err := io.WriteString(x.f, s); err != nil {
		x.t.Fatal(err)
	}
}

// waitFor waits until ok holds for the screen, up to limit; it fails the
// test with the screen when it never does.
func (x *term) waitFor(what string, limit time.Duration, ok func(screen string) bool) {
	x.t.Helper()
	deadline := time.NewTimer(limit)
	defer deadline.Stop()
	for {
		if ok(x.text()) {
			return
		}
		select {
		case <-x.wrote:
		case <-deadline.C:
			x.t.Fatalf("no %s on the screen after %s:\n%s", what, limit, x.text())
		case <-x.exited:
			if ok(x.text()) {
				return
			}
			x.t.Fatalf("the program exited before %s appeared:\n%s", what, x.text())
		}
	}
}

// buildAgent builds indusr-tui, the agent in the terminal, into a temp
// folder.
func buildAgent(t testing.TB) string {
	t.Helper()
	out := t.TempDir()
	cmd := exec.Command("go", "build", "-o", out, "github.com/indusagi/induscode/cmd/indusr-tui")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	return filepath.Join(out, "indusr-tui")
}

// agentEnv is the environment of an agent that talks to the model server
// at url, with a home and config of its own.
func agentEnv(t testing.TB, url string) []string {
	home := t.TempDir()
	return []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"TERM=xterm-256color", "ANTHROPIC_API_KEY=test-key", "ANTHROPIC_BASE_URL=" + url,
		"INDUSR_MODEL=anthropic/claude-sonnet-4-5",
		// Claude Code, when it is the program: no telemetry, no update
		// checks, nothing but the model server.
		"DISABLE_TELEMETRY=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
	}
}

func rss(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			var kb int64
			fmt.Sscanf(strings.TrimSpace(v), "%d", &kb)
			return kb, nil
		}
	}
	return 0, fmt.Errorf("no VmRSS in /proc/%d/status", pid)
}
