//go:build linux

// Package jailtest is the escape suite of the sandbox, for tests only: a
// workspace with every protected path in place, a folder outside it, and
// a list of attempts to get out (writes through absolute paths, "..",
// links, /proc, an inherited folder descriptor; writes to each protected
// path; reading a secret; TCP and UDP to a listener on 127.0.0.1;
// signalling a process outside; a setuid program), each run through
// whatever starts confined commands (the package's own runner, indusr
// call, serve, a hook) and checked from outside afterwards.
package jailtest

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Secret is the content of the fake private key outside the workspace.
const Secret = "PRIVATE-KEY-MATERIAL"

// Scene is the world one suite runs in.
type Scene struct {
	// Workspace is the confined child's workspace and working folder.
	Workspace string
	// Outside is a folder beside the workspace that no child may change.
	Outside string
	// Home holds .ssh/id_ed25519 with Secret in it.
	Home string

	tcp    net.Listener
	udp    net.PacketConn
	victim *exec.Cmd
	exited chan struct{}
}

// Attempt is one way out: Command is shell text, Escaped looks at the
// world afterwards (and at the command's output) and says whether it got
// out.
type Attempt struct {
	Name string
	// Family groups attempts in the suite's tally: "file" (writes
	// outside), "protected" (the protected paths), "git", "read",
	// "network" (TCP, UDP), "socket" (one per socket family), "terminal",
	// "signal", "privilege".
	Family  string
	Command string
	Escaped func(output string) bool
	// NeedsFD says the attempt reads descriptor 3, a folder of Outside
	// opened before the sandbox: only runners that pass ExtraFiles run it.
	NeedsFD bool
	// ReadOnly says the attempt only escapes a child that may not read
	// everywhere (it reads the secret).
	ReadOnly bool
}

// New builds the scene under t.TempDir: a workspace with .git (hooks,
// config), .claude/settings.json, .indus/addons, .indusvx and a
// subfolder sub, and an outside folder with a victim file.
func New(t testing.TB) *Scene {
	t.Helper()
	base := t.TempDir()
	s := &Scene{Workspace: filepath.Join(base, "ws"), Outside: filepath.Join(base, "out"), Home: filepath.Join(base, "home")}
	for _, d := range []string{"sub", ".git/hooks", ".git/objects", ".claude", ".indus/addons", ".indusvx"} {
		must(t, os.MkdirAll(filepath.Join(s.Workspace, d), 0o755))
	}
	must(t, os.MkdirAll(s.Outside, 0o755))
	must(t, os.MkdirAll(filepath.Join(s.Home, ".ssh"), 0o700))
	files := map[string]string{
		filepath.Join(s.Workspace, ".git/config"):             "[core]\n",
		filepath.Join(s.Workspace, ".claude/settings.json"):   "{}\n",
		filepath.Join(s.Workspace, "top.txt"):                 "top\n",
		filepath.Join(s.Outside, "victim"):                    "orig\n",
		filepath.Join(s.Home, ".ssh/id_ed25519"):              Secret + "\n",
		filepath.Join(s.Workspace, ".indusvx/approvals.json"): "{}\n",
	}
	for p, c := range files {
		must(t, os.WriteFile(p, []byte(c), 0o644))
	}
	// A setuid copy of touch (effective only when the test runs as a
	// user who can set it, root; the attempt runs either way).
	if touch, err := exec.LookPath("touch"); err == nil {
		if b, err := os.ReadFile(touch); err == nil {
			p := filepath.Join(s.Outside, "suid-touch")
			if os.WriteFile(p, b, 0o755) == nil {
				_ = os.Chmod(p, 0o4755)
			}
		}
	}
	var err error
	s.tcp, err = net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	s.udp, err = net.ListenPacket("udp", "127.0.0.1:0")
	must(t, err)
	s.victim = exec.Command("sleep", "300")
	must(t, s.victim.Start())
	s.exited = make(chan struct{})
	go func() { _ = s.victim.Wait(); close(s.exited) }()
	t.Cleanup(func() {
		s.tcp.Close()
		s.udp.Close()
		_ = s.victim.Process.Kill()
		<-s.exited
	})
	return s
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func (s *Scene) exists(rel ...string) bool {
	_, err := os.Lstat(filepath.Join(rel...))
	return err == nil
}

func (s *Scene) content(p string) string {
	b, _ := os.ReadFile(p)
	return string(b)
}

// Attempts are the escape attempts against s. Each creates a file of its
// own name, so attempts do not mask each other.
func (s *Scene) Attempts() []Attempt {
	ws, out := s.Workspace, s.Outside
	outName := filepath.Base(out)
	made := func(p string) func(string) bool { return func(string) bool { return s.exists(p) } }
	var a []Attempt
	family := "file"
	add := func(name, cmd string, esc func(string) bool) {
		a = append(a, Attempt{Name: name, Family: family, Command: cmd, Escaped: esc})
	}
	add("absolute path", fmt.Sprintf("echo x > %s/abs", out), made(out+"/abs"))
	add("dot-dot", fmt.Sprintf("echo x > ../%s/dotdot", outName), made(out+"/dotdot"))
	add("symlink made inside", fmt.Sprintf("ln -s %s/symtarget sub/link; echo x > sub/link", out), made(out+"/symtarget"))
	add("hard link", fmt.Sprintf("ln %s/victim sub/hard && echo pwned > sub/hard", out),
		func(string) bool { return s.content(out+"/victim") != "orig\n" })
	add("/proc/self/root", fmt.Sprintf("echo x > /proc/self/root%s/procroot", out), made(out+"/procroot"))
	add("/proc/self/cwd", fmt.Sprintf("echo x > /proc/self/cwd/../%s/proccwd", outName), made(out+"/proccwd"))
	a = append(a, Attempt{Name: "descriptor opened before", Family: "file", Command: "echo x > /proc/self/fd/3/viafd", NeedsFD: true, Escaped: made(out + "/viafd")})
	family = "privilege"
	add("setuid program", fmt.Sprintf("%s/suid-touch %s/suid", out, out), made(out+"/suid"))
	family = "protected"
	add("protected .indusvx/", "echo x > .indusvx/planted", made(ws+"/.indusvx/planted"))
	add("protected .indusvx/ file", "echo x >> .indusvx/approvals.json",
		func(string) bool { return s.content(ws+"/.indusvx/approvals.json") != "{}\n" })
	add("protected .indus/", "mkdir -p .indus/addons/evil && echo x > .indus/addons/evil/manifest.toml", made(ws+"/.indus/addons/evil"))
	add("protected .mcp.json", `echo '{"mcpServers":{}}' > .mcp.json`, made(ws+"/.mcp.json"))
	add("protected .claude/settings.json", `echo '{"hooks":{}}' > .claude/settings.json`,
		func(string) bool { return s.content(ws+"/.claude/settings.json") != "{}\n" })
	add("protected .claude/settings.local.json", `echo '{}' > .claude/settings.local.json`, made(ws+"/.claude/settings.local.json"))
	family = "git"
	add("protected .git/hooks/", "printf '#!/bin/sh\\n' > .git/hooks/pre-commit",
		func(string) bool {
			return s.exists(ws+"/.git/hooks/pre-commit") || s.exists(ws+"/.git/hooks-old/pre-commit")
		})
	add("protected .git/config", "echo '[core] hooksPath = /tmp' >> .git/config",
		func(string) bool { return s.content(ws+"/.git/config") != "[core]\n" })
	add("rename .git/hooks away", "mv .git/hooks .git/hooks-old && mkdir .git/hooks", made(ws+"/.git/hooks-old"))
	add("replace .git/config", "rm -f .git/config; echo x > .git/config",
		func(string) bool { return s.content(ws+"/.git/config") != "[core]\n" })
	// Moved back at once, so the attempts after it find .git in place.
	add("rename .git", "mv .git git-moved && echo RENAMED; mv git-moved .git 2>/dev/null",
		func(o string) bool { return strings.Contains(o, "RENAMED") || s.exists(ws+"/git-moved") })
	family = "protected"
	add("rename .claude", "mv .claude claude-moved && echo RENAMED; mv claude-moved .claude 2>/dev/null",
		func(o string) bool { return strings.Contains(o, "RENAMED") || s.exists(ws+"/claude-moved") })
	add("new .mcp.json moved in", `echo '{}' > sub/m.json && mv sub/m.json .mcp.json`, made(ws+"/.mcp.json"))
	family = "git"
	add("symlink to .git/hooks made inside", "ln -s ../.git/hooks sub/hk; echo x > sub/hk/pre-push", made(ws+"/.git/hooks/pre-push"))
	add("move into .git/hooks", "echo x > sub/pc && mv sub/pc .git/hooks/pre-applypatch", made(ws+"/.git/hooks/pre-applypatch"))
	add("hard link into .git/hooks", "echo x > sub/pc2 && ln sub/pc2 .git/hooks/prepare-commit-msg", made(ws+"/.git/hooks/prepare-commit-msg"))
	add("unmount a protection", "umount .git/hooks; umount -l .git/hooks; echo x > .git/hooks/post-checkout", made(ws+"/.git/hooks/post-checkout"))
	add("remount a protection writable", "mount -o remount,rw,bind .git/hooks; echo x > .git/hooks/post-merge", made(ws+"/.git/hooks/post-merge"))
	add("unmount in a nested namespace", "unshare -Urm sh -c 'umount -l .git/hooks; echo x > .git/hooks/pre-rebase'", made(ws+"/.git/hooks/pre-rebase"))
	family = "protected"
	add("write the quarantine", "mkdir -p .indusvx/quarantine && echo x > .indusvx/quarantine/planted", made(ws+"/.indusvx/quarantine/planted"))
	a = append(a, Attempt{Name: "read ~/.ssh", Family: "read", ReadOnly: true, Command: fmt.Sprintf("cat %s/.ssh/id_ed25519", s.Home),
		Escaped: func(o string) bool { return strings.Contains(o, Secret) }})
	port := s.tcp.Addr().(*net.TCPAddr).Port
	family = "network"
	add("TCP connect to 127.0.0.1", fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d && echo CONNECTED", port),
		func(o string) bool { return strings.Contains(o, "CONNECTED") || s.accepted() })
	uport := s.udp.LocalAddr().(*net.UDPAddr).Port
	add("UDP send to 127.0.0.1", fmt.Sprintf("echo x > /dev/udp/127.0.0.1/%d && echo SENT", uport),
		func(o string) bool { return strings.Contains(o, "SENT") || s.received() })
	family = "signal"
	add("signal a process outside", fmt.Sprintf("kill -TERM %d && echo SIGNALLED", s.victim.Process.Pid),
		func(o string) bool { return strings.Contains(o, "SIGNALLED") || s.victimGone() })
	a = append(a, s.gitAttempts()...)
	return append(a, s.probeAttempts()...)
}

// accepted reports a connection waiting on the listener: a connect that
// returned has already put one in the backlog, so no wait is needed.
func (s *Scene) accepted() bool {
	l := s.tcp.(*net.TCPListener)
	_ = l.SetDeadline(time.Now())
	c, err := l.Accept()
	if err != nil {
		return false
	}
	c.Close()
	return true
}

func (s *Scene) received() bool {
	_ = s.udp.SetReadDeadline(time.Now())
	var b [64]byte
	n, _, _ := s.udp.ReadFrom(b[:])
	return n > 0
}

func (s *Scene) victimGone() bool {
	select {
	case <-s.exited:
		return true
	default:
		return syscall.Kill(s.victim.Process.Pid, 0) != nil
	}
}

// Runner runs one command confined, in the scene's workspace, and
// returns what it printed (stdout and stderr).
type Runner func(t testing.TB, command string) string

// Run runs every attempt that applies (readsAll: the policy reads
// everywhere; fd: the runner passes descriptor 3) as one script, each in
// a subshell of its own, so one confined start covers them all. It
// returns the number of attempts and the names of those that escaped,
// each logged with its output, and logs the tally per family. An attempt
// whose probe found nothing to try here (a socket family this kernel
// lacks) is left out of the count.
func (s *Scene) Run(t testing.TB, run Runner, readsAll, fd bool) (attempts int, escaped []string) {
	t.Helper()
	var script strings.Builder
	var chosen []Attempt
	for _, a := range s.Attempts() {
		if a.NeedsFD && !fd || a.ReadOnly && readsAll {
			continue
		}
		fmt.Fprintf(&script, "echo '%s%d'\n( %s ) 2>&1\n", marker, len(chosen), a.Command)
		chosen = append(chosen, a)
	}
	fmt.Fprintf(&script, "echo '%send'\n", marker)
	out := run(t, script.String())
	if !strings.Contains(out, marker+"end") {
		t.Fatalf("the escape script did not run to its end:\n%s", out)
	}
	parts := strings.Split(out, marker)
	type tally struct{ attempts, escapes, skipped int }
	byFamily := map[string]*tally{}
	var order []string
	for i, a := range chosen {
		seg := ""
		prefix := fmt.Sprint(i) + "\n"
		for _, p := range parts {
			if strings.HasPrefix(p, prefix) {
				seg = strings.TrimPrefix(p, prefix)
			}
		}
		f := byFamily[a.Family]
		if f == nil {
			f = &tally{}
			byFamily[a.Family] = f
			order = append(order, a.Family)
		}
		if strings.Contains(seg, unavailable) {
			f.skipped++
			t.Logf("not counted %q (nothing to try here): %s", a.Name, strings.TrimSpace(seg))
			continue
		}
		attempts++
		f.attempts++
		if a.Escaped(seg) {
			f.escapes++
			escaped = append(escaped, a.Name)
			t.Logf("escape %q: %s\noutput: %s", a.Name, a.Command, seg)
		}
	}
	for _, name := range order {
		f := byFamily[name]
		t.Logf("escape suite, %s: %d attempts, %d escapes (%d not available here)", name, f.attempts, f.escapes, f.skipped)
	}
	t.Logf("escape suite: %d attempts, %d escapes", attempts, len(escaped))
	return attempts, escaped
}

// marker separates the attempts' output.
const marker = "@@attempt "

// OutsideDir opens Outside as a folder, for a runner that passes it as
// descriptor 3.
func (s *Scene) OutsideDir(t testing.TB) *os.File {
	f, err := os.Open(s.Outside)
	must(t, err)
	t.Cleanup(func() { f.Close() })
	return f
}

// gitAttempts plant what git would run or read as config on the user's
// next git command: a protected child of .git that did not exist (each
// must be refused or moved away), and a repository of its own below the
// top, as a folder and as a pointer file.
func (s *Scene) gitAttempts() []Attempt {
	ws := s.Workspace
	made := func(rel string) func(string) bool {
		return func(string) bool { return s.exists(filepath.Join(ws, rel)) }
	}
	var a []Attempt
	add := func(name, cmd, rel string) {
		a = append(a, Attempt{Name: name, Family: "git", Command: cmd, Escaped: made(rel)})
	}
	add("plant .git/commondir", "echo ../sub > .git/commondir", ".git/commondir")
	add("plant .git/config.worktree", `printf '[core]\n\tfsmonitor = touch /tmp/x\n' > .git/config.worktree`, ".git/config.worktree")
	add("plant .git/info/attributes", "mkdir -p .git/info && echo '* filter=x' > .git/info/attributes", ".git/info/attributes")
	add("plant .git/modules/m/config", "mkdir -p .git/modules/m && echo '[core]' > .git/modules/m/config", ".git/modules/m/config")
	add("plant .git/worktrees/w/config.worktree", "mkdir -p .git/worktrees/w && echo '[core]' > .git/worktrees/w/config.worktree", ".git/worktrees/w/config.worktree")
	add("plant a repository below the top", `mkdir -p sub/inner/.git && printf '[core]\n\tfsmonitor = touch /tmp/x\n' > sub/inner/.git/config`, "sub/inner/.git")
	add("plant a .git pointer below the top", "mkdir -p sub/wt && echo 'gitdir: ../../sub' > sub/wt/.git", "sub/wt/.git")
	return a
}
