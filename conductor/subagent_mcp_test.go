package conductor_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/indusagi/induscode/conductor"
	"github.com/indusagi/induscode/internal/fakemodel"
	"github.com/indusagi/induscode/internal/testpeer"
	"github.com/indusagi/induscode/provider/connect"
)

// A subagent uses the MCP servers its parent mounted: server-filesystem's
// tools are in its deck and its call reaches the server, which was
// started once, for the parent.
func TestSubagentSharesParentServers(t *testing.T) {
	dir := t.TempDir()
	entry := testpeer.NPMFile(t, "@modelcontextprotocol/server-filesystem/dist/index.js")
	starts := filepath.Join(t.TempDir(), "starts")
	os.WriteFile(filepath.Join(dir, "hello.txt"), []byte("hi\n"), 0o644)
	row := map[string]any{"command": "sh", "args": []string{"-c", `echo started >> "$1"; exec "$2" "$3" "$4"`, "sh", starts, testpeer.Node(t), entry, dir}}
	b, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"fs": row}})
	cfg := filepath.Join(t.TempDir(), "mcp.json")
	os.WriteFile(cfg, b, 0o644)
	srv := fakemodel.Start(t)
	var mu sync.Mutex
	var child []wire
	srv.Respond(func(n int, r fakemodel.Request) fakemodel.Reply {
		w := readWire(t, r)
		if w.parent() {
			if w.msgs == 1 {
				return fakemodel.Call("task", `{"objective":"list the folder"}`)
			}
			return fakemodel.Say("done")
		}
		mu.Lock()
		child = append(child, w)
		mu.Unlock()
		if w.msgs == 1 {
			return fakemodel.Call("fs__list_directory", `{"path":"`+dir+`"}`)
		}
		return fakemodel.Say("listed")
	})
	o := conductor.Options{Model: modelOf("anthropic"), Mode: conductor.BypassPermissions}
	o.Session.Dir, o.Session.NoAddons, o.Session.MCP = dir, true, []string{cfg}
	o.Session.Warn = func(m string) { t.Log(m) }
	o.Open = connect.Opener(connect.Config{Getenv: env(srv), MaxRetries: -1})
	c, err := conductor.Open(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if res, err := c.Run(context.Background(), "delegate"); err != nil || res.IsError {
		t.Fatalf("run: %v %+v", err, res)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(child) != 2 || !slices.Contains(child[0].tools, "fs__list_directory") {
		t.Fatalf("the subagent's deck lacks the server's tools: %+v", child)
	}
	if !strings.Contains(child[1].body, "hello.txt") {
		t.Errorf("the subagent's call did not reach the server: %s", child[1].body)
	}
	if got, _ := os.ReadFile(starts); strings.Count(string(got), "started") != 1 {
		t.Errorf("the server was started %d times, want once (the parent's)", strings.Count(string(got), "started"))
	}
}
