package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/indusagi/induscode/internal/testpeer"
)

// TestPeerBenchmarks measures indusr serve against its peers, in one run
// and with the same client (a minimal one, rawclient_test.go, so that the
// figures are the servers' and not a client's), and prints a Markdown table for
// BENCHMARKS.md. It runs only with INDUSR_BENCH=1 (scripts/bench-serve):
//
//   - read of a small file over stdio, p50, against server-filesystem's
//     read_text_file;
//   - read over Streamable HTTP with 8 concurrent clients, calls/s, against
//     server-everything's echo in its Streamable HTTP mode;
//   - a grafted stdio server's echo through indusr serve --http, p50,
//     against the same server behind supergateway (Streamable HTTP,
//     stateful), next to a direct stdio call.
//
// Rounds alternate between the two sides so that load that comes and goes
// on a shared machine falls on both.
func TestPeerBenchmarks(t *testing.T) {
	if os.Getenv("INDUSR_BENCH") == "" {
		t.Skip("set INDUSR_BENCH=1 (or run scripts/bench-serve) to measure against the peers")
	}
	node := testpeer.Node(t)
	fsServer := testpeer.NPMFile(t, "@modelcontextprotocol/server-filesystem/dist/index.js")
	everything := testpeer.NPMFile(t, "@modelcontextprotocol/server-everything/dist/index.js")
	gateway := testpeer.NPMFile(t, "supergateway/dist/index.js")
	loopback := testpeer.Loopback(t)
	rounds, perRound := 10, 50
	dir := workspace(t, map[string]string{"small.txt": strings.Repeat("a small file of text\n", 20)})
	small := filepath.Join(dir, "small.txt")

	var table []string
	row := func(what, peer string, ours, theirs float64, unit string) {
		ratio := ours / theirs
		table = append(table, fmt.Sprintf("| %s | %s | %.3g %s | %.3g %s | %.2fx |", what, peer, ours, unit, theirs, unit, ratio))
	}

	// 1. read over stdio, p50.
	ours := startRawStdio(t, exec.Command(indusr, "--cwd", dir, "--no-mcp", "serve"))
	peer := startRawStdio(t, exec.Command(node, fsServer, dir))
	oursT, peerT := alternate(t, rounds, perRound,
		func() error { return ours.call("read", map[string]any{"path": "small.txt"}) },
		func() error { return peer.call("read_text_file", map[string]any{"path": small}) })
	row("`read` small file over stdio, p50", "server-filesystem `read_text_file`", p50(oursT), p50(peerT), "ms")
	// The floor: the Go SDK's smallest server, whose tool does nothing.
	bare := filepath.Join(t.TempDir(), "baresdk")
	if out, err := exec.Command("go", "build", "-o", bare, "./testdata/baresdk").CombinedOutput(); err != nil {
		t.Fatalf("building testdata/baresdk: %v\n%s", err, out)
	}
	floor := startRawStdio(t, exec.Command(bare))
	floorT, _ := alternate(t, 2, perRound, func() error { return floor.call("read", map[string]any{"path": "small.txt"}) }, func() error { return nil })
	table = append(table, fmt.Sprintf("| (for reference) a bare Go SDK stdio server, no-op tool, p50 | - | %.3g ms | - | - |", p50(floorT)))

	// 2. read over Streamable HTTP, 8 concurrent clients, calls/s.
	_, oursURL, oursToken := runServeHTTP(t, dir, "--no-mcp")
	_, sseURL, sseToken := runServeHTTP(t, dir, "--no-mcp", "--sse")
	peerURL := startNodeHTTP(t, node, loopback, everything, "streamableHttp") + "/mcp"
	var oursRate, sseRate, peerRate []float64
	for r := 0; r < 6; r++ {
		a := throughput(t, oursURL, oursToken, 8, 2*time.Second, "read", map[string]any{"path": "small.txt"})
		b := throughput(t, peerURL, "", 8, 2*time.Second, "echo", map[string]any{"message": "hi"})
		c := throughput(t, sseURL, sseToken, 8, 2*time.Second, "read", map[string]any{"path": "small.txt"})
		oursRate, peerRate, sseRate = append(oursRate, a), append(peerRate, b), append(sseRate, c)
	}
	row("`read` over Streamable HTTP, 8 clients (JSON bodies, the default)", "server-everything `echo` (streamableHttp)", median(oursRate), median(peerRate), "calls/s")
	row("`read` over Streamable HTTP, 8 clients, `--sse` (event streams)", "server-everything `echo` (streamableHttp)", median(sseRate), median(peerRate), "calls/s")

	// 3. A grafted stdio server's echo through indusr serve --http, p50.
	cfg := filepath.Join(t.TempDir(), "mcp.json")
	b, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"everything": map[string]any{"command": node, "args": []string{everything, "stdio"}}}})
	if err := os.WriteFile(cfg, b, 0o644); err != nil {
		t.Fatal(err)
	}
	_, graftURL, graftToken := runServeHTTP(t, dir, "--mcp", cfg)
	gw := startGateway(t, node, loopback, gateway, node+" "+everything+" stdio") + "/mcp"
	waitTool(t, connectQuiet(t, &mcp.StreamableClientTransport{Endpoint: graftURL, HTTPClient: &http.Client{Transport: bearer{graftToken}}}), "everything__echo")
	g := startRawHTTPAuth(t, graftURL, graftToken)
	s := startRawHTTP(t, gw)
	direct := startRawStdio(t, exec.Command(node, everything, "stdio"))
	echo := map[string]any{"message": "hi"}
	gT, sT := alternate(t, rounds, perRound,
		func() error { return g.call("everything__echo", echo) },
		func() error { return s.call("echo", echo) })
	dT, _ := alternate(t, 2, perRound, func() error { return direct.call("echo", echo) }, func() error { return nil })
	row("grafted stdio `echo` via `indusr serve --http`, p50", "supergateway (streamableHttp, stateful)", p50(gT), p50(sT), "ms")
	table = append(table, fmt.Sprintf("| (for reference) the same `echo` over stdio directly, p50 | - | %.3g ms | - | - |", p50(dT)))

	fmt.Println("| measure | peer | indusr | peer | indusr / peer |")
	fmt.Println("|---|---|---|---|---|")
	for _, l := range table {
		fmt.Println(l)
	}
}

func connectQuiet(t *testing.T, tr mcp.Transport) *mcp.ClientSession {
	t.Helper()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(context.Background(), tr, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func callOK(cs *mcp.ClientSession, name string, args any) error {
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return err
	}
	if res.IsError {
		return fmt.Errorf("%s: %v", name, res.Content)
	}
	return nil
}

// alternate times rounds of n calls of a and of b, the two taking turns
// to go first, after a warm-up of each; it returns every call's time in ms.
func alternate(t *testing.T, rounds, n int, a, b func() error) (ta, tb []float64) {
	t.Helper()
	time1 := func(f func() error, into *[]float64, keep bool) {
		for i := 0; i < n; i++ {
			start := time.Now()
			if err := f(); err != nil {
				t.Fatal(err)
			}
			if keep {
				*into = append(*into, float64(time.Since(start).Microseconds())/1000)
			}
		}
	}
	time1(a, &ta, false)
	time1(b, &tb, false)
	for r := 0; r < rounds; r++ {
		if r%2 == 0 {
			time1(a, &ta, true)
			time1(b, &tb, true)
		} else {
			time1(b, &tb, true)
			time1(a, &ta, true)
		}
	}
	return ta, tb
}

// throughput runs clients concurrent sessions calling name for d and
// returns the calls per second.
func throughput(t *testing.T, url, token string, clients int, d time.Duration, name string, args any) float64 {
	t.Helper()
	sessions := make([]*rawHTTP, clients)
	for i := range sessions {
		sessions[i] = startRawHTTPAuth(t, url, token)
		if err := sessions[i].call(name, args); err != nil { // warm
			t.Fatal(err)
		}
	}
	var n atomic.Int64
	var wg sync.WaitGroup
	stop := time.Now().Add(d)
	for _, cs := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(stop) {
				if err := cs.call(name, args); err != nil {
					t.Error(err)
					return
				}
				n.Add(1)
			}
		}()
	}
	wg.Wait()
	return float64(n.Load()) / d.Seconds()
}

func p50(v []float64) float64 { return median(v) }

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	return s[len(s)/2]
}

// startNodeHTTP runs an npm server in an HTTP mode on a loopback port of
// its own choosing and returns its base URL.
func startNodeHTTP(t *testing.T, node, loopback, entry, mode string) string {
	t.Helper()
	cmd := exec.Command(node, "--require", loopback, entry, mode)
	cmd.Env = append(os.Environ(), "PORT=0")
	return startListening(t, cmd)
}

func startGateway(t *testing.T, node, loopback, gateway, stdio string) string {
	t.Helper()
	cmd := exec.Command(node, "--require", loopback, gateway, "--stdio", stdio, "--outputTransport", "streamableHttp", "--stateful", "--port", "0", "--logLevel", "none")
	return startListening(t, cmd)
}

// startListening starts cmd (with the loopback preload) and returns the
// base URL it announces.
func startListening(t *testing.T, cmd *exec.Cmd) string {
	t.Helper()
	return "http://" + testpeer.Listen(t, cmd)
}

func waitTool(t *testing.T, cs *mcp.ClientSession, name string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		for tl, err := range cs.Tools(context.Background(), nil) {
			if err == nil && tl.Name == name {
				return
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%s never listed", name)
}
