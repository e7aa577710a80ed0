package serve

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/indusagi/induscode/internal/testpeer"
)

// The SDK's own client at each protocol generation, the stateless
// 2026-07-28 (server/discover, a listen stream, _meta on every request)
// and the initialize handshake of 2025-06-18 and 2025-11-25, lists and
// calls tools over stdio, JSON bodies and event streams, at the version
// it asked for. A file read in one call is edited in the next, and a
// background process started in one call is read back in a later one:
// over HTTP a stateless client's requests share one deck session.
func TestSDKClientAtEachProtocolVersion(t *testing.T) {
	t.Parallel()
	for _, version := range []string{"2026-07-28", "2025-11-25", "2025-06-18"} {
		for _, transport := range []string{"stdio", "http", "sse"} {
			t.Run(version+"/"+transport, func(t *testing.T) {
				t.Parallel()
				dir := workspace(t, map[string]string{"notes.txt": "hello\n"})
				var tr mcp.Transport
				switch transport {
				case "stdio":
					cmd := exec.Command(indusr, "--cwd", dir, "--no-mcp", "serve")
					cmd.Stderr = &testWriter{t: t}
					tr = &mcp.CommandTransport{Command: cmd}
				case "http", "sse":
					url, _ := startHTTP(t, sessionOptions(dir), HTTPOptions{EventStreams: transport == "sse"})
					tr = &mcp.StreamableClientTransport{Endpoint: url}
				}
				ev := newEvents()
				client := mcp.NewClient(&mcp.Implementation{Name: "serve-test", Version: "1"}, ev.options())
				ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
				defer cancel()
				cs, err := client.Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: version})
				if err != nil {
					t.Fatalf("connect: %v", err)
				}
				defer cs.Close()
				if got := cs.InitializeResult().ProtocolVersion; got != version {
					t.Errorf("the session speaks %s, want %s", got, version)
				}
				tools, err := cs.ListTools(ctx, nil)
				if err != nil || len(tools.Tools) < 10 {
					t.Fatalf("tools/list: %v %v", err, tools)
				}
				if got := mustSucceed(t, "read", call(t, cs, "read", map[string]any{"path": "notes.txt"})); !strings.Contains(got, "hello") {
					t.Errorf("read: %s", got)
				}
				mustSucceed(t, "edit", call(t, cs, "edit", map[string]any{"path": "notes.txt", "old_string": "hello", "new_string": "goodbye"}))
				if b, _ := os.ReadFile(filepath.Join(dir, "notes.txt")); string(b) != "goodbye\n" {
					t.Errorf("notes.txt = %q after the edit", b)
				}
				mustSucceed(t, "process start", call(t, cs, "process", map[string]any{"action": "start", "command": "echo bg-line"}))
				if got := mustSucceed(t, "process wait", call(t, cs, "process", map[string]any{"action": "wait", "id": "p1"})); !strings.Contains(got, "bg-line") {
					t.Errorf("the background process read back: %s", got)
				}
			})
		}
	}
}

// The MCP inspector (a client of the TypeScript SDK) lists and calls the
// tools over stdio, JSON bodies and event streams.
func TestInspectorOverEachTransport(t *testing.T) {
	t.Parallel()
	inspector := testpeer.NPMFile(t, "@modelcontextprotocol/inspector-cli/build/cli.js")
	node := testpeer.Node(t)
	for _, transport := range []string{"stdio", "http", "sse"} {
		t.Run(transport, func(t *testing.T) {
			t.Parallel()
			dir := workspace(t, map[string]string{"notes.txt": "hello from notes\n"})
			var server []string
			switch transport {
			case "stdio":
				server = []string{indusr, "--cwd", dir, "--no-mcp", "serve"}
			default:
				url, _ := startHTTP(t, sessionOptions(dir), HTTPOptions{EventStreams: transport == "sse"})
				server = []string{url, "--transport", "http"}
			}
			// The inspector needs a package.json in the parent of its
			// working directory.
			runDir := filepath.Join(t.TempDir(), "run")
			if err := os.MkdirAll(runDir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(filepath.Dir(runDir), "package.json"), []byte("{}\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, args := range [][]string{
				{"--method", "tools/list"},
				{"--method", "tools/call", "--tool-name", "read", "--tool-arg", "path=notes.txt"},
			} {
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
				cmd := exec.CommandContext(ctx, node, append(append([]string{inspector, "--cli"}, server...), args...)...)
				cmd.Dir = runDir
				out, err := cmd.CombinedOutput()
				cancel()
				want := `"name": "read"`
				if args[1] == "tools/call" {
					want = "hello from notes"
				}
				if err != nil || !strings.Contains(string(out), want) {
					t.Errorf("inspector %s: %v\n%.2000s", args[1], err, out)
				}
			}
		})
	}
}
