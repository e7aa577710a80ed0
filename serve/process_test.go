package serve

import (
	"bufio"
	"context"
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
// the process and the endpoint URL it printed.
func runServeHTTP(t *testing.T, dir string, flags ...string) (*exec.Cmd, string) {
	t.Helper()
	args := []string{"--cwd", dir}
	serveArgs := []string{"serve", "--http=127.0.0.1:0"}
	for _, f := range flags {
		if f == "--sse" { // a flag of serve itself
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
	for {
		select {
		case l, ok := <-out:
			if !ok {
				t.Fatal("indusr serve --http exited before printing its endpoint")
			}
			if _, url, found := strings.Cut(l, "MCP endpoint "); found {
				url, _, _ = strings.Cut(url, " ")
				go func() {
					for l := range out {
						t.Log("indusr:", l)
					}
				}()
				return cmd, url
			}
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
				cmd, url = runServeHTTP(t, dir, "--no-mcp")
				cs = httpClient(t, url, nil)
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
	_, url := runServeHTTP(t, dir, "--no-mcp")
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
