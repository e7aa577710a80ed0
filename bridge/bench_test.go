package bridge

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/indusagi/induscode/bridge/mcpconfig"
	"github.com/indusagi/induscode/deck"
	"github.com/indusagi/induscode/internal/testpeer"
)

// BenchmarkEchoOverhead compares the latency of server-everything's echo
// called through the deck (Box.Run -> grafted tool -> fleet) with a direct
// go-sdk client call to another instance of the same stdio server. Calls
// alternate so drift in machine load hits both alike; the p50 of each and
// their ratio are reported.
func BenchmarkEchoOverhead(b *testing.B) {
	if everything == "" {
		testpeer.Missing(b, "server-everything", "run scripts/test (it runs npm ci in testdata/npm)")
	}
	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: exec.Command("node", everything, "stdio")},
		&mcp.ClientSessionOptions{ProtocolVersion: pinnedProtocolVersion})
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()

	f := Mount(ctx, []mcpconfig.Server{{Name: "everything", Transport: mcpconfig.Stdio, Command: "node", Args: []string{everything, "stdio"}}}, Options{Dir: b.TempDir()})
	defer f.Close()
	d, err := deck.Provision(deck.All, deck.Setup{Dir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	if err := d.Graft(f.Tools()...); err != nil {
		b.Fatal(err)
	}
	box := d.Box()
	input := json.RawMessage(`{"message":"hello"}`)
	params := &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "hello"}}

	for range 50 { // warm up both servers' JITs
		box.Run(ctx, "everything__echo", input)
		cs.CallTool(ctx, params)
	}
	direct := make([]time.Duration, 0, b.N)
	grafted := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		t0 := time.Now()
		if res, err := cs.CallTool(ctx, params); err != nil || res.IsError {
			b.Fatal(err)
		}
		t1 := time.Now()
		if res := box.Run(ctx, "everything__echo", input); res.IsError {
			b.Fatal(res.PlainText())
		}
		t2 := time.Now()
		direct = append(direct, t1.Sub(t0))
		grafted = append(grafted, t2.Sub(t1))
	}
	b.StopTimer()
	pd, pg := p50(direct), p50(grafted)
	b.ReportMetric(float64(pd.Microseconds()), "direct-p50-µs")
	b.ReportMetric(float64(pg.Microseconds()), "grafted-p50-µs")
	b.ReportMetric(float64(pg)/float64(pd), "ratio")
}

func p50(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// BenchmarkMountScaling compares mounting eight stdio servers with mounting
// one: they connect in parallel, so eight should cost little more than one.
// The servers are testdata/mcpfake taking 200 ms to answer initialize, the
// way real servers spend their startup waiting (npx resolving a package, a
// database connecting); the bridge's own work is what eight add.
func BenchmarkMountScaling(b *testing.B) { benchMount(b, "-delay", "200ms") }

// BenchmarkMountScalingInstant is the same with servers that answer at once:
// then eight process startups compete for the CPU, and on a machine with
// fewer cores than servers the ratio shows the cores, not the bridge.
func BenchmarkMountScalingInstant(b *testing.B) { benchMount(b) }

func benchMount(b *testing.B, args ...string) {
	ctx := context.Background()
	servers := make([]mcpconfig.Server, 8)
	for i := range servers {
		servers[i] = fake(fmt.Sprintf("s%d", i), args...)
	}
	var one, eight []time.Duration
	for range b.N {
		for _, n := range []int{1, 8} {
			t0 := time.Now()
			f := Mount(ctx, servers[:n], Options{})
			took := time.Since(t0)
			if len(f.Tools()) != 7*n {
				b.Fatalf("mounted %d tools of %d", len(f.Tools()), 7*n)
			}
			b.StopTimer()
			f.Close()
			b.StartTimer()
			if n == 1 {
				one = append(one, took)
			} else {
				eight = append(eight, took)
			}
		}
	}
	b.ReportMetric(float64(p50(one).Microseconds()), "mount1-p50-µs")
	b.ReportMetric(float64(p50(eight).Microseconds()), "mount8-p50-µs")
	b.ReportMetric(float64(p50(eight))/float64(p50(one)), "ratio")
}
