package bridge

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/indusagi/induscode/bridge/mcpconfig"
	"github.com/indusagi/induscode/internal/testpeer"
	"github.com/indusagi/induscode/tool"
)

var (
	// fakeBin is testdata/mcpfake, built once for the package's tests.
	fakeBin string
	// everything is server-everything's entry point, when npm installed it.
	everything string
	// loopback is the preload that keeps Node servers on 127.0.0.1.
	loopback string
)

// TestMain builds the fake server and checks, after every test, that no
// goroutine was left behind.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "bridge-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fakeBin = filepath.Join(dir, "mcpfake")
	if out, err := exec.Command("go", "build", "-o", fakeBin, "./testdata/mcpfake").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building testdata/mcpfake: %v\n%s", err, out)
		os.Exit(1)
	}
	if p, err := filepath.Abs("../testdata/npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js"); err == nil {
		if _, err := os.Stat(p); err == nil {
			everything = p
		}
	}
	loopback, _ = filepath.Abs("../testdata/loopback.cjs")
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

// fake is a stdio server config running testdata/mcpfake with args.
func fake(name string, args ...string) mcpconfig.Server {
	return mcpconfig.Server{Name: name, Transport: mcpconfig.Stdio, Command: fakeBin, Args: args, Source: "test"}
}

// mount mounts servers with a log directory under the test's temp dir and
// closes the fleet when the test ends.
func mount(t testing.TB, opts Options, servers ...mcpconfig.Server) *Fleet {
	t.Helper()
	if opts.LogDir == "" {
		opts.LogDir = t.TempDir()
	}
	f := Mount(t.Context(), servers, opts)
	t.Cleanup(func() { f.Close() })
	return f
}

// toolNamed returns the fleet's grafted tool with this name.
func toolNamed(t testing.TB, f *Fleet, name string) tool.Tool {
	t.Helper()
	for _, tl := range f.Tools() {
		if tl.Spec().Name == name {
			return tl
		}
	}
	t.Fatalf("no tool %q; the fleet has %v (status %+v)", name, f.ToolNames(), f.Status())
	return nil
}

func call(t testing.TB, f *Fleet, name, input string) tool.Result {
	t.Helper()
	return callCtx(t.Context(), t, f, name, input)
}

func callCtx(ctx context.Context, t testing.TB, f *Fleet, name, input string) tool.Result {
	t.Helper()
	var raw json.RawMessage
	if input != "" {
		raw = json.RawMessage(input)
	}
	return toolNamed(t, f, name).Run(ctx, raw, nil)
}

func wantText(t testing.TB, res tool.Result, want string) {
	t.Helper()
	if res.IsError || !strings.Contains(res.PlainText(), want) {
		t.Fatalf("result %q (isError %v), want success containing %q", res.PlainText(), res.IsError, want)
	}
}

func wantError(t testing.TB, res tool.Result, want ...string) {
	t.Helper()
	if !res.IsError {
		t.Fatalf("result %q succeeded, want an error", res.PlainText())
	}
	for _, w := range want {
		if !strings.Contains(res.PlainText(), w) {
			t.Fatalf("error %q does not mention %q", res.PlainText(), w)
		}
	}
}

func statusOf(t testing.TB, f *Fleet, name string) ServerStatus {
	t.Helper()
	for _, s := range f.Status() {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no server %q in status", name)
	return ServerStatus{}
}

// alive reports whether pid is a live process (a zombie counts as dead).
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// pid (comm) state ...: the state follows the last ')'.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

// waitGone waits until every pid is gone.
func waitGone(t testing.TB, pids ...int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for _, pid := range pids {
		for alive(pid) {
			if time.Now().After(deadline) {
				t.Fatalf("process %d is still running", pid)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// logPIDs reads "<what> <pid>" lines from a server's log file.
func logPIDs(t testing.TB, logFile, what string) []int {
	t.Helper()
	b, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(what + ` (\d+)`)
	var pids []int
	for _, m := range re.FindAllStringSubmatch(string(b), -1) {
		n, _ := strconv.Atoi(m[1])
		if !slices.Contains(pids, n) {
			pids = append(pids, n)
		}
	}
	return pids
}

// waitLog waits until a server's log file contains want.
func waitLog(t testing.TB, logFile, want string, within time.Duration) string {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		b, _ := os.ReadFile(logFile)
		if strings.Contains(string(b), want) {
			return string(b)
		}
		if time.Now().After(deadline) {
			t.Fatalf("log %s does not show %q within %v:\n%s", logFile, want, within, b)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// startNode runs server-everything in an HTTP mode on a port of its own
// choosing, bound to 127.0.0.1 by the loopback preload, and returns its
// base URL. The process is killed when the test ends.
func startNode(t testing.TB, mode string) string {
	t.Helper()
	if everything == "" {
		testpeer.Missing(t, "server-everything", "run scripts/test (it runs npm ci in testdata/npm)")
	}
	cmd := exec.Command("node", "--require", loopback, everything, mode)
	cmd.Env = append(os.Environ(), "PORT=0")
	return "http://" + testpeer.Listen(t, cmd)
}

// waitRefreshed waits until server name's link has received at least n
// tools/list_changed notifications and finished a listing that answers
// every one of them: a burst has settled, with no refresh due or running.
func waitRefreshed(t testing.TB, f *Fleet, name string, n int64, within time.Duration) {
	t.Helper()
	i := slices.IndexFunc(f.servers, func(s *server) bool { return s.cfg.Name == name })
	if i < 0 {
		t.Fatalf("no server %q", name)
	}
	s := f.servers[i]
	s.mu.Lock()
	l := s.link
	s.mu.Unlock()
	deadline := time.Now().Add(within)
	for {
		got, done := l.notified.Load(), l.listedUpTo.Load()
		if got >= n && done == got {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %d of %d notifications arrived, listings answer %d, after %v", name, got, n, done, within)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
