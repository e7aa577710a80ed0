package serve

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/indusagi/induscode/bridge"
	"github.com/indusagi/induscode/session"
)

// A grafted server's tools are served as SERVER__TOOL, announced with
// tools/list_changed when the background mount brings them, callable
// through the deck, and announced again after the server restarts.
func TestGraftedServerThroughTheDeck(t *testing.T) {
	t.Parallel()
	cfg := everythingConfig(t)
	dir := workspace(t, nil)
	url, srv := startHTTP(t, Options{Session: session.Options{Dir: dir, MCP: []string{cfg}, Warn: func(m string) { t.Log(m) }}, Log: quiet}, HTTPOptions{})
	ev := newEvents()
	cs := httpClient(t, url, ev)

	select {
	case <-srv.Mounted():
	case <-time.After(30 * time.Second):
		t.Fatal("server-everything was not mounted within 30s")
	}
	waitForTool(t, cs, ev, "everything__echo")
	tl := toolNames(t, cs)["everything__echo"]
	if tl.Annotations == nil || tl.Annotations.OpenWorldHint == nil || !*tl.Annotations.OpenWorldHint {
		t.Errorf("a grafted tool is not marked open-world: %+v", tl.Annotations)
	}
	if out := mustSucceed(t, "echo", call(t, cs, "everything__echo", map[string]any{"message": "through the deck"})); !strings.Contains(out, "Echo: through the deck") {
		t.Errorf("echo returned %q", out)
	}

	// A structured result keeps its structure through the deck: the SDK
	// client checks it against the output schema the deck serves.
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "everything__get-structured-content", Arguments: map[string]any{"location": "Chicago"}})
	if err != nil || res.IsError || res.StructuredContent == nil {
		t.Errorf("get-structured-content through the deck: %v %+v", err, res)
	}

	// Kill the server: the next call restarts it, and clients are told
	// to list the tools again.
	var pid int
	for _, st := range srv.Fleet().Status() {
		if st.Name == "everything" && st.State == bridge.Ready {
			pid = st.PID
		}
	}
	if pid == 0 {
		t.Fatalf("no running everything server in %+v", srv.Fleet().Status())
	}
	drain(ev.listChanged)
	if p, err := os.FindProcess(pid); err != nil || p.Kill() != nil {
		t.Fatalf("killing the server %d: %v", pid, err)
	}
	waitGone(t, pid, 10*time.Second)
	deadline := time.Now().Add(20 * time.Second)
	for {
		res := call(t, cs, "everything__echo", map[string]any{"message": "again"})
		if !res.IsError && strings.Contains(text(res), "Echo: again") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("echo never worked after the restart: %s", text(res))
		}
		time.Sleep(200 * time.Millisecond)
	}
	select {
	case <-ev.listChanged:
	case <-time.After(10 * time.Second):
		t.Fatal("no notifications/tools/list_changed after the grafted server restarted")
	}
}

// Over stdio the same: indusr serve --mcp grafts the server and the
// client learns of its tools without asking twice by hand.
func TestGraftedServerOverStdio(t *testing.T) {
	t.Parallel()
	cfg := everythingConfig(t)
	ev := newEvents()
	cs := stdioClient(t, workspace(t, nil), ev, "--mcp", cfg)
	waitForTool(t, cs, ev, "everything__get-sum")
	if out := mustSucceed(t, "get-sum", call(t, cs, "everything__get-sum", map[string]any{"a": 2, "b": 40})); !strings.Contains(out, "42") {
		t.Errorf("get-sum returned %q", out)
	}
}

// waitForTool lists the tools until name is there, waiting for
// list_changed between tries.
func waitForTool(t *testing.T, c *mcp.ClientSession, ev *events, name string) {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		if toolNames(t, c)[name] != nil {
			return
		}
		select {
		case <-ev.listChanged:
		case <-time.After(500 * time.Millisecond):
		case <-deadline:
			t.Fatalf("%s never appeared in tools/list", name)
		}
	}
}

func drain(ch chan struct{}) {
	for {
		select {
		case <-ch:
		default:
			return
		}
	}
}
