package serve

import (
	"context"
	"io"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkReadOverPipes is one read call through the whole MCP path, in
// process: client encode, pipe, server decode, deck session, the read tool,
// result conversion and back. It is the per-call cost behind
// `indusr serve` over stdio, without process start-up.
func BenchmarkReadOverPipes(b *testing.B) {
	dir := workspace(b, map[string]string{"small.txt": "a small file\nof two lines\n"})
	srv, err := New(sessionOptions(dir))
	if err != nil {
		b.Fatal(err)
	}
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.RunStdio(ctx, sr, sw) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, &mcp.IOTransport{Reader: cr, Writer: cw}, nil)
	if err != nil {
		b.Fatal(err)
	}
	params := &mcp.CallToolParams{Name: "read", Arguments: map[string]any{"path": "small.txt"}}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := cs.CallTool(ctx, params)
		if err != nil || res.IsError {
			b.Fatal(err, res)
		}
	}
	b.StopTimer()
	cs.Close()
	cancel()
	<-done
}

// BenchmarkReadOverHTTP is read through the Streamable HTTP endpoint with
// 8 client sessions calling at once, in process (loopback TCP).
func BenchmarkReadOverHTTP(b *testing.B) {
	dir := workspace(b, map[string]string{"small.txt": "a small file\nof two lines\n"})
	url, _ := startHTTP(b, sessionOptions(dir), HTTPOptions{})
	const clients = 8
	sessions := make([]*mcp.ClientSession, clients)
	for i := range sessions {
		sessions[i] = connect(b, &mcp.StreamableClientTransport{Endpoint: url}, nil)
	}
	params := &mcp.CallToolParams{Name: "read", Arguments: map[string]any{"path": "small.txt"}}
	b.ReportAllocs()
	b.ResetTimer()
	var next atomic.Int64
	var wg sync.WaitGroup
	for _, cs := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next.Add(1) <= int64(b.N) {
				res, err := cs.CallTool(context.Background(), params)
				if err != nil || res.IsError {
					b.Error(err, res)
					return
				}
			}
		}()
	}
	wg.Wait()
}
