package shell

import (
	"context"
	"encoding/json"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/indusagi/induscode/internal/jail"
	"github.com/indusagi/induscode/internal/jail/jailtest"
	"github.com/indusagi/induscode/tool"
)

// Every test here starts processes; none may leave a goroutine behind.
// The test binary is also the sandbox's helper (BenchmarkBashSandboxed).
func TestMain(m *testing.M) {
	jail.Main()
	jailtest.Main() // the probe program of the escape suite's socket and terminal attempts
	goleak.VerifyTestMain(m)
}

// session returns a fresh session in a temporary workspace, closed (and
// its processes stopped) when the test ends.
func session(t *testing.T) *tool.Env {
	t.Helper()
	env := tool.NewEnv(t.TempDir())
	t.Cleanup(func() { env.Close() })
	return env
}

// call runs t with a JSON input built from in.
func call(t *testing.T, tl tool.Tool, env *tool.Env, in map[string]any) tool.Result {
	t.Helper()
	return callCtx(context.Background(), t, tl, env, in)
}

func callCtx(ctx context.Context, t *testing.T, tl tool.Tool, env *tool.Env, in map[string]any) tool.Result {
	t.Helper()
	raw, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	return tl.Run(ctx, raw, env)
}

// text is the result's first block's text.
func text(r tool.Result) string {
	if len(r.Blocks) == 0 {
		return ""
	}
	return r.Blocks[0].Text
}

var pidLine = regexp.MustCompile(`(?m)^pid:(\d+)$`)

// pids collects the "pid:N" lines a test command printed.
func pids(t *testing.T, out string) []int {
	t.Helper()
	var ps []int
	for _, m := range pidLine.FindAllStringSubmatch(out, -1) {
		n, _ := strconv.Atoi(m[1])
		ps = append(ps, n)
	}
	return ps
}

// alive reports whether pid is a live process: it exists and is not a
// zombie waiting for init to reap it.
func alive(pid int) bool {
	if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil {
		// pid (comm) S ...: the state follows the last ')'.
		s := string(b)
		if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
			return s[i+2] != 'Z' && s[i+2] != 'X'
		}
		return true
	} else if _, statErr := os.Stat("/proc/self"); statErr == nil {
		return false // procfs is there and the pid is not
	}
	return signalable(pid)
}

// requireDead fails unless every pid is gone within a short while (a
// killed process may take a moment to be torn down).
func requireDead(t *testing.T, ps []int) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for _, p := range ps {
		for alive(p) {
			if time.Now().After(deadline) {
				t.Fatalf("process %d survived", p)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// waitFile waits until path holds a complete line: a shell creates the
// file before it writes to it, so existence alone is not enough.
func waitFile(t *testing.T, path string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if b, err := os.ReadFile(path); err == nil && strings.HasSuffix(string(b), "\n") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never appeared", path)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
