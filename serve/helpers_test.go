package serve

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/indusagi/induscode/internal/jail"
	"github.com/indusagi/induscode/internal/jail/jailtest"
	"github.com/indusagi/induscode/internal/testpeer"
	"github.com/indusagi/induscode/session"
)

// indusr is the real binary, built once for the tests that run it as a
// client would (stdio, signals, the conformance suite).
var indusr string

func TestMain(m *testing.M) {
	jail.Main()     // in-process sessions confine their addons' processes
	jailtest.Main() // the escape suite's probe program (linux)
	testpeer.SystemProgramsFirst()
	dir, err := os.MkdirTemp("", "serve-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	indusr = filepath.Join(dir, "indusr")
	if out, err := exec.Command("go", "build", "-o", indusr, "../cmd/indusr").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building indusr: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	if code == 0 {
		// net/http lingers half a second on a connection it refused (413)
		// before closing it; that goroutine ends by itself.
		if err := goleak.Find(goleak.IgnoreAnyFunction("net/http.(*conn).closeWriteAndWait")); err != nil {
			fmt.Fprintln(os.Stderr, "goroutines left behind:", err)
			code = 1
		}
	}
	os.RemoveAll(dir)
	os.Exit(code)
}

// workspace returns a temporary workspace holding files.
func workspace(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// startHTTP serves opts over HTTP on a loopback port of its own for the
// test's length and returns the endpoint URL and the server.
func startHTTP(t testing.TB, opts Options, ho HTTPOptions) (string, *Server) {
	t.Helper()
	srv, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	if ho.Addr == "" {
		ho.Addr = "127.0.0.1:0"
	}
	ctx, cancel := context.WithCancel(context.Background())
	urls := make(chan string, 1)
	done := make(chan error, 1)
	go func() { done <- srv.RunHTTP(ctx, ho, func(u string) { urls <- u }) }()
	var url string
	select {
	case url = <-urls:
	case err := <-done:
		cancel()
		t.Fatalf("RunHTTP: %v", err)
	}
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("RunHTTP returned %v after its context ended", err)
		}
	})
	return url, srv
}

// events collects what a client session is told.
type events struct {
	mu          sync.Mutex
	progress    []*mcp.ProgressNotificationParams
	listChanged chan struct{}
}

func newEvents() *events { return &events{listChanged: make(chan struct{}, 16)} }

func (e *events) options() *mcp.ClientOptions {
	return &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			e.mu.Lock()
			e.progress = append(e.progress, req.Params)
			e.mu.Unlock()
		},
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case e.listChanged <- struct{}{}:
			default:
			}
		},
	}
}

func (e *events) progressFor(token any) []*mcp.ProgressNotificationParams {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []*mcp.ProgressNotificationParams
	for _, p := range e.progress {
		if fmt.Sprint(p.ProgressToken) == fmt.Sprint(token) {
			out = append(out, p)
		}
	}
	return out
}

// connect opens a client session over transport, closed when the test
// ends, at the newest protocol version both sides speak.
func connect(t testing.TB, transport mcp.Transport, ev *events) *mcp.ClientSession {
	t.Helper()
	return connectAt(t, transport, ev, "")
}

// connectAt is connect at a protocol version ("" the newest).
func connectAt(t testing.TB, transport mcp.Transport, ev *events, version string) *mcp.ClientSession {
	t.Helper()
	if ev == nil {
		ev = newEvents()
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "serve-test", Version: "1"}, ev.options())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, transport, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// httpClient connects over HTTP with the initialize handshake: the tests
// that use it are about what an MCP session holds (its own deck session,
// ended with it). Stateless clients, whose requests share one deck
// session, are generations_test.go's.
func httpClient(t testing.TB, url string, ev *events) *mcp.ClientSession {
	t.Helper()
	return connectAt(t, &mcp.StreamableClientTransport{Endpoint: url}, ev, sessionGeneration)
}

// sessionGeneration is the newest protocol version with sessions (the
// initialize handshake).
const sessionGeneration = "2025-11-25"

// stdioClient runs `indusr serve` in dir with extra flags, as a client
// would, and connects to it.
func stdioClient(t testing.TB, dir string, ev *events, flags ...string) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command(indusr, append([]string{"--cwd", dir}, append(flags, "serve")...)...)
	cmd.Stderr = &testWriter{t: t}
	return connect(t, &mcp.CommandTransport{Command: cmd}, ev)
}

// testWriter passes a child's stderr to the test log.
type testWriter struct {
	t  testing.TB
	mu sync.Mutex
}

func (w *testWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	defer func() { recover() }() // the test may have ended; the line is lost
	w.t.Logf("indusr: %s", strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// call runs a tool and fails the test on a protocol error.
func call(t testing.TB, cs *mcp.ClientSession, name string, args any) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("call %s: %v", name, err)
	}
	return res
}

// text joins the text content of a result.
func text(res *mcp.CallToolResult) string {
	var sb strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			sb.WriteString(tc.Text)
			sb.WriteByte('\n')
		}
	}
	return sb.String()
}

// mustSucceed fails the test unless res is a success, and returns its text.
func mustSucceed(t testing.TB, name string, res *mcp.CallToolResult) string {
	t.Helper()
	if res.IsError {
		t.Fatalf("%s failed: %s", name, text(res))
	}
	return text(res)
}

func toolNames(t testing.TB, cs *mcp.ClientSession) map[string]*mcp.Tool {
	t.Helper()
	out := make(map[string]*mcp.Tool)
	for tl, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatalf("tools/list: %v", err)
		}
		out[tl.Name] = tl
	}
	return out
}

// alive reports whether process pid exists (and is not a zombie we own).
func alive(pid int) bool {
	if _, err := os.FindProcess(pid); err != nil {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	f := strings.Fields(string(b))
	return len(f) < 3 || f[2] != "Z"
}

// waitGone waits until pid has exited.
func waitGone(t testing.TB, pid int, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for alive(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("process %d still runs %v later", pid, within)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitPID waits for a command to write its pid into file.
func waitPID(t testing.TB, file string) int {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		b, err := os.ReadFile(file)
		if err == nil && strings.HasSuffix(string(b), "\n") {
			var pid int
			if _, err := fmt.Sscan(string(b), &pid); err == nil {
				return pid
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no pid in %s after 20s", file)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// everythingConfig writes an MCP config that grafts server-everything
// (stdio) as "everything", or fails/skips when it is not installed.
func everythingConfig(t testing.TB) string {
	t.Helper()
	entry := testpeer.NPMFile(t, "@modelcontextprotocol/server-everything/dist/index.js")
	node := testpeer.Node(t)
	cfg := map[string]any{"mcpServers": map[string]any{"everything": map[string]any{
		"command": node, "args": []string{entry, "stdio"},
	}}}
	b, _ := json.Marshal(cfg)
	p := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// sessionOptions are serve options for a workspace without MCP servers.
func sessionOptions(dir string) Options {
	return Options{Session: session.Options{Dir: dir, NoMCP: true, Warn: func(string) {}}, Log: quiet}
}

// quiet drops the server's log: the SDK logs every session at Info.
var quiet = slog.New(slog.DiscardHandler)

// lines reads a child's stderr line by line into a channel.
func lines(r *bufio.Scanner) <-chan string {
	ch := make(chan string, 64)
	go func() {
		defer close(ch)
		for r.Scan() {
			ch <- r.Text()
		}
	}()
	return ch
}

// pipeServer serves a fresh server in dir over in-process pipes, as
// RunStdio serves stdin and stdout; it returns the client's ends. The
// server stops when the test ends.
func pipeServer(t testing.TB, dir string) (toServer *io.PipeWriter, fromServer *io.PipeReader) {
	t.Helper()
	srv, err := New(sessionOptions(dir))
	if err != nil {
		t.Fatal(err)
	}
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.RunStdio(ctx, sr, sw) }()
	t.Cleanup(func() {
		cw.Close()
		cancel()
		<-done
	})
	return cw, cr
}
