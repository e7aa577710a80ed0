package serve

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/indusagi/induscode/internal/testpeer"
	"github.com/indusagi/induscode/session"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// tier1Workspace is a workspace holding both example addons of
// examples/addons: the Go one built for the test, the Python one as it is.
func tier1Workspace(t *testing.T) string {
	t.Helper()
	testpeer.Command(t, "python3", "install python3")
	dir := workspace(t, map[string]string{"keys.txt": "token = sk-abcdefghijklmnopqrstuvwxyz\n"})
	gate := filepath.Join(dir, ".indus", "addons", "go-gate")
	redact := filepath.Join(dir, ".indus", "addons", "py-redact")
	if out, err := exec.Command("go", "build", "-o", filepath.Join(gate, "go-gate"), "../examples/addons/go-gate").CombinedOutput(); err != nil {
		t.Fatalf("building the Go example addon: %v\n%s", err, out)
	}
	for _, f := range []struct{ from, to string }{
		{"../examples/addons/go-gate/manifest.toml", filepath.Join(gate, "manifest.toml")},
		{"../examples/addons/py-redact/manifest.toml", filepath.Join(redact, "manifest.toml")},
		{"../examples/addons/py-redact/redact.py", filepath.Join(redact, "redact.py")},
	} {
		b, err := os.ReadFile(f.from)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(f.to), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f.to, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// The example Tier-1 addons act on calls that come through indusr serve
// (stdio, the real binary): the Go gate refuses a force push, the Python
// interceptor redacts a key and its gate refuses a .env file, and the Go
// addon's tool is listed and runs.
func TestServeTier1AddonsOverStdio(t *testing.T) {
	t.Parallel()
	dir := tier1Workspace(t)
	cmd := exec.Command(indusr, "--cwd", dir, "--no-mcp", "serve")
	// The user approved the workspace's addon processes for this run.
	cmd.Env = append(os.Environ(), "INDUSR_TRUST_HOOKS=1")
	cmd.Stderr = &testWriter{t: t}
	cs := connect(t, &mcp.CommandTransport{Command: cmd}, newEvents())
	if _, ok := toolNames(t, cs)["gate_rules"]; !ok {
		t.Error("the Go addon's tool gate_rules is not listed")
	}
	if out := mustSucceed(t, "gate_rules", call(t, cs, "gate_rules", map[string]any{})); !strings.Contains(out, "git") {
		t.Errorf("gate_rules: %q", out)
	}
	res := call(t, cs, "bash", map[string]any{"command": "git push -f origin main"})
	if !res.IsError || !strings.Contains(text(res), "addon go-gate blocked the call of bash: force-pushing") {
		t.Errorf("force push: error=%v %q", res.IsError, text(res))
	}
	if out := mustSucceed(t, "read", call(t, cs, "read", map[string]any{"path": "keys.txt"})); !strings.Contains(out, "token = [redacted]") {
		t.Errorf("read: %q, want the key redacted", out)
	}
	res = call(t, cs, "write", map[string]any{"path": ".env", "content": "A=1\n"})
	if !res.IsError || !strings.Contains(text(res), "addon py-redact blocked the call of write") {
		t.Errorf("write .env: error=%v %q", res.IsError, text(res))
	}
}

// Over HTTP each MCP session has its own addon processes, and they end
// with the session; the server's catalog listing asked the addons for
// their declarations without keeping a process running.
func TestServeTier1AddonsOverHTTP(t *testing.T) {
	t.Parallel()
	dir := tier1Workspace(t)
	url, srv := startHTTP(t, Options{Session: session.Options{Dir: dir, NoMCP: true, TrustHooks: true, Warn: func(m string) { t.Log(m) }}, Log: quiet}, HTTPOptions{})
	cs := httpClient(t, url, newEvents())
	res := call(t, cs, "bash", map[string]any{"command": "git push --force"})
	if !res.IsError || !strings.Contains(text(res), "addon go-gate blocked the call of bash") {
		t.Errorf("force push: error=%v %q", res.IsError, text(res))
	}
	if out := mustSucceed(t, "read", call(t, cs, "read", map[string]any{"path": "keys.txt"})); !strings.Contains(out, "[redacted]") {
		t.Errorf("read: %q", out)
	}
	cs.Close()
	waitExits(t, dir, 0) // the session's processes end with it; the listing kept none
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	waitExits(t, dir, 0)
}

// waitExits waits until each example addon's log shows running processes
// left: as many starts as exits, plus running.
func waitExits(t *testing.T, dir string, running int) {
	t.Helper()
	for _, id := range []string{"go-gate", "py-redact"} {
		log := filepath.Join(dir, ".indusvx", "addon-logs", id+".log")
		deadline := time.Now().Add(10 * time.Second)
		for {
			b, _ := os.ReadFile(log)
			started, exited := strings.Count(string(b), "host: started"), strings.Count(string(b), "host: exited")
			if started > running && started-exited == running {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: %d starts, %d exits, want %d running:\n%s", id, started, exited, running, b)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
}
