package serve

import (
	"context"
	"io"
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
