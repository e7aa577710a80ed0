//go:build linux

package jail_test

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/indusagi/induscode/internal/childproc"
	"github.com/indusagi/induscode/internal/jail"
	"github.com/indusagi/induscode/internal/jail/jailtest"
)

// A descriptor left open without close-on-exec (by whoever started indusr,
// or made so later) must not reach a confined command: Landlock does not
// restrict what is already open, so a read-only command could write
// outside through it. Through the helper and through the ward, in each
// sandboxed mode.
func TestInheritedDescriptorsDoNotReachTheSandbox(t *testing.T) {
	needLandlock(t)
	t.Parallel()
	for _, mode := range []jail.Mode{jail.ReadOnly, jail.WorkspaceWrite} {
		for _, ward := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s, ward %v", mode, ward), func(t *testing.T) {
				t.Parallel()
				s := jailtest.New(t)
				victim := filepath.Join(s.Outside, "victim")
				fd := leakedFD(t, victim)
				run := startedBy(s, jail.ForMode(mode, s.Workspace, t.TempDir()), ward)
				out := run(t, fmt.Sprintf("echo pwned >&%d; echo pwned > /proc/self/fd/%d; ls -l /proc/self/fd/", fd, fd))
				if b, _ := os.ReadFile(victim); string(b) != "orig\n" {
					t.Fatalf("the confined command wrote outside through descriptor %d: victim is %q\n%s", fd, b, out)
				}
				if strings.Contains(out, victim) {
					t.Errorf("descriptor %d reached the command:\n%s", fd, out)
				}
			})
		}
	}
}

// leakedFD opens path for appending without close-on-exec, as a careless
// parent would leave it, and returns its number.
func leakedFD(t *testing.T, path string) int {
	t.Helper()
	fd, err := unix.Open(path, unix.O_WRONLY|unix.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(fd) })
	return fd
}

// The process that starts indusr may leave descriptors open: jail.Main
// marks them close-on-exec, so no child gets them. The test binary is
// started with one (descriptor 3, not close-on-exec) and, through Main,
// runs a command that writes to it.
func TestMainClosesWhatTheParentLeftOpen(t *testing.T) {
	t.Parallel()
	victim := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(victim, []byte("orig\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(victim, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.ExtraFiles = []*os.File{f}
	cmd.Env = append(os.Environ(), inheritEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.Contains(string(out), "RAN") {
		t.Fatalf("the child did not run its command:\n%s", out)
	}
	if b, _ := os.ReadFile(victim); string(b) != "orig\n" {
		t.Fatalf("a child wrote through the descriptor the parent left open: %q\n%s", b, out)
	}
}

// inheritEnv makes the test binary run inheritedChild instead of its
// tests.
const inheritEnv = "JAIL_TEST_INHERITED"

// inheritedChild runs, after jail.Main, a command that writes to
// descriptor 3, which this process inherited.
func inheritedChild() {
	out, _ := exec.Command("sh", "-c", "echo pwned >&3; echo RAN").CombinedOutput()
	os.Stdout.Write(out)
	os.Exit(0)
}

// A confined command gets no controlling terminal of the user's: with
// one, it could push keystrokes into it (TIOCSTI), which the user's shell
// runs unconfined once indusr exits, or read and write the user's screen.
// The test binary is started on a terminal of its own (as indusr on the
// user's) and starts confined commands that open /dev/tty, through the
// helper and through the ward.
func TestConfinedCommandsHaveNoTerminal(t *testing.T) {
	needLandlock(t)
	t.Parallel()
	master, slave := openPTY(t)
	defer master.Close()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), terminalEnv+"="+ws)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	var out strings.Builder
	done := make(chan struct{})
	go func() { _, _ = io.Copy(&out, master); close(done) }()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	err = cmd.Wait()
	<-done // EIO once the last holder of the terminal is gone
	got := out.String()
	if err != nil || !strings.Contains(got, "OUTSIDE-TTY") || strings.Count(got, "RAN") != 5 {
		t.Fatalf("the child on a terminal: %v\n%s", err, got)
	}
	if strings.Contains(got, "SANDBOX-TTY") {
		t.Fatalf("a confined command opened the user's terminal:\n%s", got)
	}
}

// terminalEnv makes the test binary run terminalChild in the workspace it
// names.
const terminalEnv = "JAIL_TEST_TERMINAL"

// terminalChild, on a controlling terminal, shows that an unconfined
// command reaches it and that confined ones, in each mode and both ways
// of starting, do not.
func terminalChild(ws string) {
	probe := func(name string) string {
		return "if ( : <>/dev/tty ) 2>/dev/null; then echo " + name + "-TTY; fi; echo RAN"
	}
	out, _ := exec.Command("sh", "-c", probe("OUTSIDE")).CombinedOutput()
	os.Stdout.Write(out)
	for _, mode := range []jail.Mode{jail.ReadOnly, jail.WorkspaceWrite} {
		for _, ward := range []bool{false, true} {
			cmd := exec.Command("sh", "-c", probe("SANDBOX"))
			cmd.Dir = ws
			if err := jail.Wrap(cmd, jail.ForMode(mode, ws, "")); err != nil {
				fmt.Println(err)
				os.Exit(1)
			}
			var out []byte
			if ward {
				w := childproc.NewWard("")
				var b strings.Builder
				cmd.Stdout, cmd.Stderr = &b, &b
				w.Prepare(cmd)
				if release, err := w.Start(cmd, true); err == nil {
					_ = cmd.Wait()
					release()
				}
				w.Close()
				out = []byte(b.String())
			} else {
				out, _ = cmd.CombinedOutput()
			}
			os.Stdout.Write(out)
		}
	}
	os.Exit(0)
}

// openPTY opens a pseudo-terminal pair.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetUint32(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	return m, s
}
