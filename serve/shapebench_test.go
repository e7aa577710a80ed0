package serve

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/indusagi/induscode/internal/testpeer"
)

// TestRuntimeShapeBenchmark measures what the calm processor count
// (Options.AdaptProcs) does to a call that comes alone: indusr serve as
// shipped against the same binary with GOMAXPROCS set to the CPU count,
// which turns the adaptation off. Per call: p50 latency, and the server's
// thread switches and CPU time from /proc. Rounds alternate; it runs only
// with INDUSR_BENCH=1 (scripts/bench-serve) and prints Markdown rows.
func TestRuntimeShapeBenchmark(t *testing.T) {
	if os.Getenv("INDUSR_BENCH") == "" {
		t.Skip("set INDUSR_BENCH=1 (or run scripts/bench-serve) to measure")
	}
	if runtime.GOOS != "linux" {
		t.Skip("reads thread switches and CPU time from /proc")
	}
	fixed := "GOMAXPROCS=" + strconv.Itoa(runtime.NumCPU())
	dir := workspace(t, map[string]string{"small.txt": strings.Repeat("a small file of text\n", 20)})
	var rows []string
	row := func(what string, calm, all []float64, cs, as shapeCost) {
		rows = append(rows, fmt.Sprintf("| %s | %.3g ms, %.1f switches, %.0f µs CPU | %.3g ms, %.1f switches, %.0f µs CPU |",
			what, p50(calm), cs.switches, cs.cpuMicros, p50(all), as.switches, as.cpuMicros))
	}

	// read over stdio.
	var stdio [2]*rawStdio
	var stdioPID [2]int
	for i, env := range []string{"", fixed} {
		cmd := exec.Command(indusr, "--cwd", dir, "--no-mcp", "serve")
		if env != "" {
			cmd.Env = append(os.Environ(), env)
		}
		stdio[i] = startRawStdio(t, cmd)
		stdioPID[i] = cmd.Process.Pid
	}
	read := map[string]any{"path": "small.txt"}
	calmT, allT, calmC, allC := alternateCost(t, stdioPID,
		func() error { return stdio[0].call("read", read) },
		func() error { return stdio[1].call("read", read) })
	row("`read` small file over stdio", calmT, allT, calmC, allC)

	// A grafted stdio server's echo through serve --http.
	node := testpeer.Node(t)
	everything := testpeer.NPMFile(t, "@modelcontextprotocol/server-everything/dist/index.js")
	cfg := filepath.Join(t.TempDir(), "mcp.json")
	b, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"everything": map[string]any{"command": node, "args": []string{everything, "stdio"}}}})
	if err := os.WriteFile(cfg, b, 0o644); err != nil {
		t.Fatal(err)
	}
	var graft [2]*rawHTTP
	var graftPID [2]int
	for i, env := range []string{"", fixed} {
		if env != "" {
			k, v, _ := strings.Cut(env, "=")
			t.Setenv(k, v) // runServeHTTP passes on the test's environment
		}
		cmd, url, token := runServeHTTP(t, dir, "--mcp", cfg)
		os.Unsetenv("GOMAXPROCS")
		waitTool(t, connectQuiet(t, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer{token}}}), "everything__echo")
		graft[i], graftPID[i] = startRawHTTPAuth(t, url, token), cmd.Process.Pid
	}
	echo := map[string]any{"message": "hi"}
	calmT, allT, calmC, allC = alternateCost(t, graftPID,
		func() error { return graft[0].call("everything__echo", echo) },
		func() error { return graft[1].call("everything__echo", echo) })
	row("grafted stdio `echo` via `indusr serve --http`", calmT, allT, calmC, allC)

	fmt.Println("| one call at a time, p50 and per call | as shipped (one processor while calm) | " + fixed + " (all processors) |")
	fmt.Println("|---|---|---|")
	for _, r := range rows {
		fmt.Println(r)
	}
}

// shapeCost is what a server process spent per call.
type shapeCost struct{ switches, cpuMicros float64 }

// alternateCost times 10 alternating rounds of 50 calls of a and b (after
// a warm-up of each) and reads from /proc what the two server processes,
// pids, spent per call meanwhile.
func alternateCost(t *testing.T, pids [2]int, a, b func() error) (ta, tb []float64, ca, cb shapeCost) {
	t.Helper()
	for range 50 {
		if err := a(); err != nil {
			t.Fatal(err)
		}
		if err := b(); err != nil {
			t.Fatal(err)
		}
	}
	before := [2]procCost{readProcCost(t, pids[0]), readProcCost(t, pids[1])}
	ta, tb = alternate(t, 10, 50, a, b)
	after := [2]procCost{readProcCost(t, pids[0]), readProcCost(t, pids[1])}
	per := func(i int, n int) shapeCost {
		return shapeCost{
			switches:  float64(after[i].switches-before[i].switches) / float64(n),
			cpuMicros: float64(after[i].cpuTicks-before[i].cpuTicks) * 1e6 / clockTicks / float64(n),
		}
	}
	return ta, tb, per(0, len(ta)), per(1, len(tb))
}

// clockTicks is USER_HZ, the unit of CPU times in /proc on Linux.
const clockTicks = 100

type procCost struct{ switches, cpuTicks int64 }

// readProcCost sums a process's thread switches (voluntary and not, over
// its threads) and reads its user and system CPU time.
func readProcCost(t *testing.T, pid int) procCost {
	t.Helper()
	var c procCost
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	s := string(stat)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	utime, _ := strconv.ParseInt(f[11], 10, 64) // fields 14 and 15 of stat
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	c.cpuTicks = utime + stime
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/status", pid))
	for _, task := range tasks {
		b, err := os.ReadFile(task)
		if err != nil {
			continue // a thread that ended meanwhile
		}
		for _, l := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.HasSuffix(k, "ctxt_switches") {
				n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
				c.switches += n
			}
		}
	}
	return c
}
