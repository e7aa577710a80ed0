//go:build linux

package jail_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/indusagi/induscode/internal/childproc"
	"github.com/indusagi/induscode/internal/jail"
	"github.com/indusagi/induscode/internal/jail/jailtest"
)

// TestMain lets the test binary be the jail's re-executed child, and
// fails the package when a test leaves a goroutine behind.
func TestMain(m *testing.M) {
	jail.Main()
	jailtest.Main() // the probe program of the socket and terminal attempts
	if os.Getenv(inheritEnv) != "" {
		inheritedChild()
	}
	if ws := os.Getenv(terminalEnv); ws != "" {
		terminalChild(ws)
	}
	// The dedicated helper, built here and found on PATH, sets up the
	// children of the mount tier (other packages' tests use the fallback:
	// their own test binary).
	dir, err := os.MkdirTemp("", "jail-helper-")
	if err != nil {
		panic(err)
	}
	if out, err := exec.Command("go", "build", "-o", filepath.Join(dir, jail.HelperName), "../../cmd/indusr-jail").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building %s: %v\n%s", jail.HelperName, err, out)
		os.Exit(1)
	}
	os.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	code := m.Run()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goroutines left behind:", err)
			code = 1
		}
	}
	os.RemoveAll(dir)
	os.Exit(code)
}

func needLandlock(t *testing.T) {
	t.Helper()
	if r := jail.Probe(); r.ABI < 1 {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the sandbox tests need Landlock: %v", r.Err)
		}
		t.Skipf("no Landlock here: %v", r.Err)
	}
}

// runner runs bash -c command in the scene's workspace under p, with the
// outside folder as descriptor 3 (opened before the sandbox), started by
// the helper (cmd.Run).
func runner(s *jailtest.Scene, p *jail.Policy) jailtest.Runner { return startedBy(s, p, false) }

// startedBy is runner, the command started by the helper or, with ward,
// by a ward from a confined thread.
func startedBy(s *jailtest.Scene, p *jail.Policy, ward bool) jailtest.Runner {
	return func(t testing.TB, command string) string {
		t.Helper()
		cmd := exec.Command("bash", "-c", command)
		cmd.Dir = s.Workspace
		cmd.ExtraFiles = []*os.File{s.OutsideDir(t)}
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := jail.Wrap(cmd, p); err != nil {
			t.Fatal(err)
		}
		// What the command made of an absent protected path is swept
		// once it ended, before the scene is looked at.
		defer jail.WatchCmd(cmd).Sweep()
		var err error
		if ward {
			w := childproc.NewWard("")
			defer w.Close()
			w.Prepare(cmd)
			var release func()
			if release, err = w.Start(cmd, true); err == nil {
				err = cmd.Wait()
				release()
			}
		} else {
			err = cmd.Run()
		}
		var exit *exec.ExitError
		if err != nil && !errors.As(err, &exit) {
			t.Fatalf("running %q: %v", command, err)
		}
		return out.String()
	}
}

// TestEscapesAreReal runs the suite unconfined: every attempt must get
// out, or the suite proves nothing.
func TestEscapesAreReal(t *testing.T) {
	t.Parallel()
	s := jailtest.New(t)
	attempts, escaped := s.Run(t, runner(s, nil), false, true)
	if len(escaped) != attempts {
		t.Fatalf("unconfined, %d of %d attempts escaped; each attempt must work without the sandbox", len(escaped), attempts)
	}
}

func TestEscapeSuite(t *testing.T) {
	needLandlock(t)
	t.Parallel()
	for _, tc := range []struct {
		name   string
		policy func(s *jailtest.Scene, temp string) *jail.Policy
		reads  bool
	}{
		{"read-only", func(s *jailtest.Scene, temp string) *jail.Policy {
			return jail.ForMode(jail.ReadOnly, s.Workspace, temp)
		}, true},
		{"workspace-write", func(s *jailtest.Scene, temp string) *jail.Policy {
			return jail.ForMode(jail.WorkspaceWrite, s.Workspace, temp)
		}, true},
		{"no grant", func(s *jailtest.Scene, temp string) *jail.Policy {
			return &jail.Policy{Mode: jail.ReadOnly, Workspace: s.Workspace, Temp: temp}
		}, false},
		{"grant of the whole workspace", func(s *jailtest.Scene, temp string) *jail.Policy {
			return &jail.Policy{Mode: jail.ReadOnly, Workspace: s.Workspace, Temp: temp, Write: []string{s.Workspace}}
		}, false},
	} {
		for _, ward := range []bool{false, true} {
			name := tc.name + ", helper"
			if ward {
				name = tc.name + ", ward"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				s := jailtest.New(t)
				p := tc.policy(s, t.TempDir())
				attempts, escaped := s.Run(t, startedBy(s, p, ward), tc.reads, true)
				if len(escaped) != 0 || attempts < 20 {
					t.Fatalf("%d attempts, escapes: %v; want at least 20 attempts and no escape", attempts, escaped)
				}
			})
		}
	}
}

// TestWorkspaceWriteAllows is the other half: what workspace-write must
// still let a command do, so the suite above cannot pass by refusing
// everything.
func TestWorkspaceWriteAllows(t *testing.T) {
	needLandlock(t)
	t.Parallel()
	s := jailtest.New(t)
	temp := t.TempDir()
	run := runner(s, jail.ForMode(jail.WorkspaceWrite, s.Workspace, temp))
	out := run(t, `set -e
echo in > sub/new.txt && mkdir -p sub/deep/er && echo x > sub/deep/er/f && rm sub/deep/er/f
echo changed > top.txt
echo obj > .git/objects/blob
echo tmp > "$TMPDIR/t" && cat "$TMPDIR/t"
cat .claude/settings.json .git/config >/dev/null
echo OK`)
	if !strings.HasSuffix(strings.TrimSpace(out), "OK") {
		t.Fatalf("workspace-write refused ordinary work:\n%s", out)
	}
	for p, want := range map[string]string{"sub/new.txt": "in\n", "top.txt": "changed\n", ".git/objects/blob": "obj\n"} {
		if b, _ := os.ReadFile(filepath.Join(s.Workspace, p)); string(b) != want {
			t.Errorf("%s = %q, want %q", p, b, want)
		}
	}
	// The top folder itself stays read-only: a new entry there is refused
	// (it could be a planted .mcp.json), and says so.
	out = run(t, "touch newtop")
	if !jail.Refused(out) || s.Workspace == "" {
		t.Errorf("a new top-level file: %q, want a permission error", out)
	}
	if _, err := os.Stat(filepath.Join(s.Workspace, "newtop")); err == nil {
		t.Error("a new top-level file was made")
	}
}

func TestReadOnlyRefusesWorkspace(t *testing.T) {
	needLandlock(t)
	t.Parallel()
	s := jailtest.New(t)
	run := runner(s, jail.ForMode(jail.ReadOnly, s.Workspace, t.TempDir()))
	out := run(t, `echo x > sub/f; echo y >> top.txt; echo t > "$TMPDIR/t" && echo TMP-OK; cat top.txt`)
	if _, err := os.Stat(filepath.Join(s.Workspace, "sub/f")); err == nil {
		t.Error("read-only wrote inside the workspace")
	}
	if !strings.Contains(out, "TMP-OK") || !strings.Contains(out, "top") || !jail.Refused(out) {
		t.Errorf("read-only: want the temp folder writable, the workspace readable and a refusal; got\n%s", out)
	}
}

func TestGrants(t *testing.T) {
	needLandlock(t)
	t.Parallel()
	s := jailtest.New(t)
	p := &jail.Policy{Mode: jail.ReadOnly, Workspace: s.Workspace, Write: []string{"sub"}, Network: true}
	clean := p.Clean()
	out := runner(s, &clean)(t, `echo x > sub/granted && echo W-OK; echo y > top.txt; cat top.txt`)
	if !strings.Contains(out, "W-OK") || !strings.Contains(out, "top") {
		t.Errorf("a write grant of sub: %s", out)
	}
	if b, _ := os.ReadFile(filepath.Join(s.Workspace, "top.txt")); string(b) != "top\n" {
		t.Error("a grant of sub let the child write top.txt")
	}
	// A grant of a protected path fails the command, closed.
	bad := &jail.Policy{Mode: jail.ReadOnly, Workspace: s.Workspace, Write: []string{filepath.Join(s.Workspace, ".git/hooks")}}
	out = runner(s, bad)(t, "echo RAN")
	if strings.Contains(out, "RAN") || !strings.Contains(out, "protected") {
		t.Errorf("a grant of .git/hooks: %q, want a refusal naming the protected path", out)
	}
	// A grant through a symbolic link planted in the repository is not
	// followed.
	if err := os.Symlink(s.Outside, filepath.Join(s.Workspace, "sub", "out-link")); err != nil {
		t.Fatal(err)
	}
	linked := &jail.Policy{Mode: jail.ReadOnly, Workspace: s.Workspace, Write: []string{filepath.Join(s.Workspace, "sub/out-link")}}
	runner(s, linked)(t, "echo x > sub/out-link/through")
	if _, err := os.Stat(filepath.Join(s.Outside, "through")); err == nil {
		t.Error("a write grant followed a link out of the workspace")
	}
}

func TestNetworkOn(t *testing.T) {
	needLandlock(t)
	t.Parallel()
	s := jailtest.New(t)
	p := jail.ForMode(jail.WorkspaceWrite, s.Workspace, "")
	p.Network = true
	var tcp *jailtest.Attempt
	for _, a := range s.Attempts() {
		if strings.HasPrefix(a.Name, "TCP") {
			tcp = &a
		}
	}
	if out := runner(s, p)(t, tcp.Command); !strings.Contains(out, "CONNECTED") {
		t.Errorf("with the network on, a TCP connect failed: %s", out)
	}
}

func TestHelperFailsClosed(t *testing.T) {
	needLandlock(t)
	t.Parallel()
	s := jailtest.New(t)
	p := jail.ForMode(jail.WorkspaceWrite, filepath.Join(s.Workspace, "missing"), "")
	out := runner(s, p)(t, "echo RAN")
	if strings.Contains(out, "RAN") || !strings.Contains(out, "indusr sandbox:") {
		t.Errorf("a policy that cannot be applied: %q, want no run and a sandbox message", out)
	}
}

func TestParseMode(t *testing.T) {
	for in, want := range map[string]jail.Mode{"": jail.Off, "off": jail.Off, "Read-Only": jail.ReadOnly, " workspace-write ": jail.WorkspaceWrite} {
		if got, err := jail.ParseMode(in); err != nil || got != want {
			t.Errorf("ParseMode(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	if _, err := jail.ParseMode("danger"); err == nil || !strings.Contains(err.Error(), "workspace-write") {
		t.Errorf("ParseMode(danger) = %v, want an error listing the modes", err)
	}
}

func TestGitPaths(t *testing.T) {
	for rel, want := range map[string]bool{
		".git": true, ".git/config": true, ".git/config.worktree": true, ".git/commondir": true,
		".git/hooks/pre-commit": true, ".git/info/attributes": true, ".git/modules/m/config": true,
		".git/worktrees/w/config.worktree": true, "sub/.git": true, "sub/.git/HEAD": true, "a/b/.GIT/config": true,
		".git/HEAD": false, ".git/objects/ab/cd": false, ".git/refs/heads/main": false, ".git/index": false,
		".gitignore": false, "src/git/config": false, ".github/workflows/ci.yml": false,
	} {
		if got := jail.IsGitProtected(rel); got != want {
			t.Errorf("IsGitProtected(%q) = %v, want %v", rel, got, want)
		}
	}
	for rel, want := range map[string]bool{".git/commondir": true, ".git/info/exclude": true, ".git/config.worktree": true, ".git/index": false, "sub/.git": false} {
		if got := jail.IsProtected(rel); got != want {
			t.Errorf("IsProtected(%q) = %v, want %v", rel, got, want)
		}
	}
}
