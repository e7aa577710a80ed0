package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	segjson "github.com/segmentio/encoding/json"
)

// BenchmarkReadOverPipes is one read call through the whole MCP path, in
// process: client encode, pipe, server decode, deck session, the read tool,
// result conversion and back. It is the per-call cost behind
// `indusr serve` over stdio, without process start-up.
func BenchmarkReadOverPipes(b *testing.B) {
	dir := workspace(b, map[string]string{"small.txt": "a small file\nof two lines\n"})
	cw, cr := pipeServer(b, dir)
	ctx := context.Background()
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

// BenchmarkSDKDecoding is where most of a small call's garbage comes from:
// the MCP SDK decodes every JSON value (a request body, its _meta, its
// params, a result) through a segmentio/encoding Decoder over a
// bytes.Reader, which allocates a 32 KiB read buffer that the runtime
// zeroes each time, six times per HTTP tools/call. Parsing the same bytes in
// place, with the same exact member matching, takes a small fraction; the
// change belongs in the SDK's internal/json.Unmarshal.
func BenchmarkSDKDecoding(b *testing.B) {
	params := []byte(`{"name":"read","arguments":{"path":"small.txt"}}`)
	type callParams struct {
		Meta      map[string]any  `json:"_meta,omitempty"`
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments,omitempty"`
	}
	b.Run("decoder as the SDK does", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var p callParams
			dec := segjson.NewDecoder(bytes.NewReader(params))
			dec.DontMatchCaseInsensitiveStructFields()
			if err := dec.Decode(&p); err != nil || p.Name != "read" {
				b.Fatal(err, p)
			}
		}
	})
	b.Run("parsed in place", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var p callParams
			if _, err := segjson.Parse(params, &p, segjson.DontMatchCaseInsensitiveStructFields); err != nil || p.Name != "read" {
				b.Fatal(err, p)
			}
		}
	})
}
