package serve

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/indusagi/induscode/approval"
	"github.com/indusagi/induscode/internal/testpeer"
	"github.com/indusagi/induscode/session"
)

// A server that starts and stops with no client opens no session: an
// approved SessionStart (or SessionEnd) hook does not run. Once a client
// calls a tool, its session fires them, so the check can fail.
func TestServeBootFiresNoSessionEvents(t *testing.T) {
	t.Parallel()
	dir := workspace(t, map[string]string{
		".claude/settings.json": `{"hooks": {
    "SessionStart": [{"hooks": [{"type": "command", "command": "touch started"}]}],
    "SessionEnd": [{"hooks": [{"type": "command", "command": "touch ended"}]}]
}}`,
	})
	store := approval.NewStore(filepath.Join(t.TempDir(), "indusvx", approval.FileName))
	sopts := session.Options{Dir: dir, NoMCP: true, ClaudeHooks: true, Approvals: &store, Warn: func(m string) { t.Log(m) }}
	if _, err := session.Approve(sopts, session.AddonHooks, session.ClaudeHooks); err != nil {
		t.Fatal(err)
	}
	exists := func(name string) bool { _, err := os.Stat(filepath.Join(dir, name)); return err == nil }
	srv, err := New(Options{Session: sopts, Log: quiet})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	if exists("started") || exists("ended") {
		t.Fatalf("serve without a client fired session events: started %v, ended %v", exists("started"), exists("ended"))
	}

	srv, err = New(Options{Session: sopts, Log: quiet})
	if err != nil {
		t.Fatal(err)
	}
	cs, ss := mcp.NewInMemoryTransports()
	go srv.MCP().Run(context.Background(), ss)
	client := connect(t, cs, newEvents())
	mustSucceed(t, "ls", call(t, client, "ls", map[string]any{}))
	client.Close()
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	if !exists("started") || !exists("ended") {
		t.Fatalf("a client's session did not fire its events: started %v, ended %v", exists("started"), exists("ended"))
	}
}

// A one-shot client calls a grafted tool of a trusted server whose tool
// list is cached: the tool is listed at once, its server starts on the
// call, and the call succeeds the first time.
func TestInspectorCallsACachedGraftAtOnce(t *testing.T) {
	t.Parallel()
	inspector := testpeer.NPMFile(t, "@modelcontextprotocol/inspector-cli/build/cli.js")
	node := testpeer.Node(t)
	cfg := patientEverything(t)
	dir := workspace(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	// Listing the tools once caches the server's list.
	if out, err := exec.CommandContext(ctx, indusr, "--cwd", dir, "--mcp", cfg, "tools").CombinedOutput(); err != nil || !strings.Contains(string(out), "everything__get-sum") {
		t.Fatalf("indusr tools: %v\n%s", err, out)
	}
	// The inspector needs a package.json in the parent of its working
	// directory.
	runDir := filepath.Join(t.TempDir(), "run")
	if err := os.MkdirAll(runDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(filepath.Dir(runDir), "package.json"), []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, node, inspector, "--cli", indusr, "--cwd", dir, "--mcp", cfg, "serve",
		"--method", "tools/call", "--tool-name", "everything__get-sum", "--tool-arg", "a=1", "--tool-arg", "b=2")
	cmd.Dir = runDir
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "The sum of 1 and 2 is 3") {
		t.Fatalf("inspector: %v\n%s", err, out)
	}
}

// A call of a grafted tool that arrives while its (uncached) server is
// still starting waits for the server instead of failing as unknown.
func TestCallWaitsForAStartingServer(t *testing.T) {
	t.Parallel()
	cfg := patientEverything(t)
	dir := workspace(t, nil)
	srv, err := New(Options{Session: session.Options{Dir: dir, MCP: []string{cfg}, Warn: func(m string) { t.Log(m) }}, Log: quiet})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	cs, ss := mcp.NewInMemoryTransports()
	go srv.MCP().Run(context.Background(), ss)
	client := connect(t, cs, newEvents())
	select {
	case <-srv.Mounted():
		t.Fatal("the server was mounted before the first call: nothing to wait for") // node starts in well over a millisecond
	default:
	}
	if out := mustSucceed(t, "echo", call(t, client, "everything__echo", map[string]any{"message": "early"})); !strings.Contains(out, "Echo: early") {
		t.Errorf("echo returned %q", out)
	}
}

// patientEverything is everythingConfig with a start-up timeout that
// holds on a busy machine: these tests are about what happens while the
// server starts, not about how fast it does.
func patientEverything(t *testing.T) string {
	t.Helper()
	entry := testpeer.NPMFile(t, "@modelcontextprotocol/server-everything/dist/index.js")
	b, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"everything": map[string]any{
		"command": testpeer.Node(t), "args": []string{entry, "stdio"}, "startupTimeout": "90s",
	}}})
	p := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
