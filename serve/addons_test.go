package serve

import (
	"strings"
	"testing"
	"time"

	"github.com/indusagi/induscode/session"
)

const serveGuard = `
id = "guard"
[[gate]]
event = "tool:before"
match-tool = "read"
reason = "reading is off today"
[[gate]]
event = "tool:before"
match-tool = "everything__get-sum"
reason = "no sums"
`

// serveRewrites are two declarative interceptors: one fixes an argument of
// a grafted tool, one redacts a name from a built-in's result.
const serveRewrites = `
[[interceptor]]
match-tool = "everything__echo"
set = { message = "rewritten" }
[[interceptor]]
match-tool = "ls"
redact = ['notes\.txt']
replacement = "[hidden]"
`

// indusr serve over stdio loads the workspace's addons: a manifest gate
// refuses the built-in read with an isError result naming the addon.
func TestServeAddonGateOverStdio(t *testing.T) {
	t.Parallel()
	dir := workspace(t, map[string]string{".indus/addons/guard/manifest.toml": serveGuard, "notes.txt": "hello\n"})
	cs := stdioClient(t, dir, newEvents(), "--no-mcp")
	res := call(t, cs, "read", map[string]any{"path": "notes.txt"})
	if !res.IsError || !strings.Contains(text(res), "addon guard blocked the call of read: reading is off today") {
		t.Errorf("read through serve: error=%v %q, want the gate's refusal", res.IsError, text(res))
	}
	if out := mustSucceed(t, "ls", call(t, cs, "ls", map[string]any{})); !strings.Contains(out, "notes.txt") {
		t.Errorf("ls: %q", out)
	}
}

// Over HTTP with a grafted server: the manifest gate refuses a grafted
// tool, and the manifest's interceptors rewrite a grafted tool's arguments
// and a built-in's result.
func TestServeAddonsOnGraftedTools(t *testing.T) {
	t.Parallel()
	cfg := everythingConfig(t)
	dir := workspace(t, map[string]string{".indus/addons/guard/manifest.toml": serveGuard + serveRewrites, "notes.txt": "hello\n"})
	url, srv := startHTTP(t, Options{Session: session.Options{Dir: dir, MCP: []string{cfg},
		Warn: func(m string) { t.Log(m) }}, Log: quiet}, HTTPOptions{})
	ev := newEvents()
	cs := httpClient(t, url, ev)
	select {
	case <-srv.Mounted():
	case <-time.After(30 * time.Second):
		t.Fatal("server-everything was not mounted within 30s")
	}
	waitForTool(t, cs, ev, "everything__echo")
	if out := mustSucceed(t, "echo", call(t, cs, "everything__echo", map[string]any{"message": "original"})); !strings.Contains(out, "Echo: rewritten") {
		t.Errorf("echo: %q, want the rewritten message", out)
	}
	res := call(t, cs, "everything__get-sum", map[string]any{"a": 1, "b": 2})
	if !res.IsError || !strings.Contains(text(res), "addon guard blocked the call of everything__get-sum: no sums") {
		t.Errorf("get-sum: error=%v %q, want the gate's refusal", res.IsError, text(res))
	}
	if out := mustSucceed(t, "ls", call(t, cs, "ls", map[string]any{})); !strings.Contains(out, "[hidden]") || strings.Contains(out, "notes.txt") {
		t.Errorf("ls: %q, want notes.txt redacted", out)
	}
}
