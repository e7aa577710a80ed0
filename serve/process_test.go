package serve

import (
	"bufio"
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/indusagi/induscode/internal/testpeer"
)

// runServeHTTP starts `indusr serve --http 127.0.0.1:0` in dir and returns
// the process, the endpoint URL it printed and the token it made for the
// run ("" with --no-token).
func runServeHTTP(t *testing.T, dir string, flags ...string) (*exec.Cmd, string, string) {
	t.Helper()
	args := []string{"--cwd", dir}
	serveArgs := []string{"serve", "--http=127.0.0.1:0"}
	for _, f := range flags {
		if f == "--sse" || f == "--no-token" { // flags of serve itself
			serveArgs = append(serveArgs, f)
		} else {
			args = append(args, f)
		}
	}
	cmd := exec.Command(indusr, append(args, serveArgs...)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	out := lines(bufio.NewScanner(stderr))
	deadline := time.After(20 * time.Second)
	var url string
	for {
		select {
		case l, ok := <-out:
			if !ok {
				t.Fatal("indusr serve --http exited before printing its endpoint and its client configs")
			}
			if _, u, found := strings.Cut(l, "MCP endpoint "); found {
				url, _, _ = strings.Cut(u, " ")
				continue
			}
			token, found := strings.CutPrefix(strings.TrimSpace(l), "Authorization: Bearer ")
			if !found {
				if !strings.HasPrefix(l, "Claude Code:") {
					continue
				}
				token = "" // the configs, and no token before them
			}
			if url == "" {
				t.Fatalf("indusr serve --http printed %q before its endpoint", l)
			}
			go func() {
				for l := range out {
					t.Log("indusr:", l)
				}
			}()
			return cmd, url, token
		case <-deadline:
			t.Fatal("indusr serve --http printed no endpoint within 20s")
		}
	}
}

// SIGTERM ends the server cleanly: exit 0, the running command and the
// background process of the session killed.
func TestSIGTERMStopsEverything(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"stdio", "http"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			dir := workspace(t, nil)
			var (
				cmd *exec.Cmd
				cs  *mcp.ClientSession
			)
			if mode == "http" {
				var url string
				var token string
				cmd, url, token = runServeHTTP(t, dir, "--no-mcp")
				cs = connect(t, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer{token}}}, nil)
			} else {
				// Own pipes, so that this test, not the SDK, waits for the
				// process and sees its exit status.
				cmd = exec.Command(indusr, "--cwd", dir, "--no-mcp", "serve")
				in, err := cmd.StdinPipe()
				if err != nil {
					t.Fatal(err)
				}
				out, err := cmd.StdoutPipe()
				if err != nil {
					t.Fatal(err)
				}
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { cmd.Process.Kill() })
				cs = connect(t, &mcp.IOTransport{Reader: out, Writer: in}, nil)
			}
			mustSucceed(t, "process", call(t, cs, "process", map[string]any{"action": "start", "command": "echo $$ > bg.pid; exec sleep 120"}))
			go cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "bash", Arguments: map[string]any{"command": "sleep 120 & echo $! > fg.pid; wait"}})
			bg, fg := waitPID(t, filepath.Join(dir, "bg.pid")), waitPID(t, filepath.Join(dir, "fg.pid"))

			if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			select {
			case err := <-exited:
				if err != nil {
					t.Errorf("indusr serve exited with %v after SIGTERM, want status 0", err)
				}
			case <-time.After(20 * time.Second):
				t.Fatal("indusr serve still runs 20s after SIGTERM")
			}
			waitGone(t, bg, 5*time.Second)
			waitGone(t, fg, 5*time.Second)
		})
	}
}

// The MCP inspector's CLI, a real client, calls our own tools over HTTP.
func TestInspectorCallsOurTools(t *testing.T) {
	t.Parallel()
	inspector := testpeer.NPMFile(t, "@modelcontextprotocol/inspector-cli/build/cli.js")
	node := testpeer.Node(t)
	dir := workspace(t, map[string]string{"hello.txt": "hello from the workspace\n"})
	_, url, token := runServeHTTP(t, dir, "--no-mcp")
	// The inspector needs a package.json in the parent of its working
	// directory.
	runDir := filepath.Join(t.TempDir(), "run")
	if err := os.MkdirAll(runDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(filepath.Dir(runDir), "package.json"), []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, inspector, "--cli", url, "--transport", "http",
		"--header", "Authorization: Bearer "+token,
		"--method", "tools/call", "--tool-name", "read", "--tool-arg", "path=hello.txt")
	cmd.Dir = runDir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("inspector: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "hello from the workspace") {
		t.Errorf("inspector output lacks the file's text:\n%s", out)
	}
}

// Loopback is not a trust boundary: every user of the machine can reach
// 127.0.0.1. `indusr serve --http` makes a token of its own unless told
// otherwise, prints it in the client configs, and refuses a request
// without it; --no-token serves without one, saying so.
func TestServeHTTPNeedsTokenByDefault(t *testing.T) {
	t.Parallel()
	dir := workspace(t, map[string]string{"hello.txt": "hello\n"})
	initialize := func(url, token string) int {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(rawInit))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	_, url, token := runServeHTTP(t, dir, "--no-mcp")
	if len(token) < 32 {
		t.Fatalf("the server printed no token of its own (%q)", token)
	}
	if code := initialize(url, ""); code != http.StatusUnauthorized {
		t.Errorf("a request without the token (another user of the machine) got %d, want 401", code)
	}
	if code := initialize(url, token+"x"); code != http.StatusUnauthorized {
		t.Errorf("a request with a wrong token got %d, want 401", code)
	}
	if code := initialize(url, token); code != http.StatusOK {
		t.Errorf("a request with the printed token got %d, want 200", code)
	}
	// Each run makes its own.
	if _, _, again := runServeHTTP(t, dir, "--no-mcp"); again == token || again == "" {
		t.Errorf("a second server's token %q, the first's %q", again, token)
	}
	// The opt-out, for a machine of one user.
	_, open, none := runServeHTTP(t, dir, "--no-mcp", "--no-token")
	if none != "" {
		t.Errorf("--no-token printed a token %q", none)
	}
	if code := initialize(open, ""); code != http.StatusOK {
		t.Errorf("with --no-token a request got %d, want 200", code)
	}
}
