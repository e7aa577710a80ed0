package session

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestForCallMountsOnlyWhatTheCallNeeds(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "servers.json")
	if err := os.WriteFile(cfg, []byte(`{"mcpServers":{"fs":{"command":"true"},"git":{"command":"true"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	base := Options{Dir: dir, MCP: []string{cfg}}

	for _, name := range []string{"read", "Todo-Read", "nosuch"} {
		o, err := ForCall(base, name)
		if err != nil || o.Mount != MountNone {
			t.Errorf("ForCall(%q) = mount %v, %v; want no server mounted", name, o.Mount, err)
		}
	}
	o, err := ForCall(base, "FS__read_file")
	if err != nil || o.Mount != MountListed || len(o.Servers) != 1 || o.Servers[0] != "fs" {
		t.Errorf("ForCall(FS__read_file) = %v %v, %v; want only server fs", o.Mount, o.Servers, err)
	}
	_, err = ForCall(base, "gh__issues")
	var unknown *UnknownToolError
	if !errors.As(err, &unknown) || !strings.Contains(err.Error(), `no configured MCP server is named "gh"; servers: fs, git`) {
		t.Errorf("ForCall(gh__issues) err = %v; want an unknown tool naming the servers", err)
	}
	if o, err := ForCall(Options{Dir: dir, MCP: []string{cfg}, NoMCP: true}, "gh__issues"); err != nil || o.Mount != MountNone {
		t.Errorf("with NoMCP: mount %v, %v; want none and no error", o.Mount, err)
	}
}

func TestResolveNamesTheSessionsTools(t *testing.T) {
	t.Parallel()
	s, err := Open(context.Background(), Options{Dir: t.TempDir(), NoMCP: true, NoAddons: true, Tools: []string{"read", "todo_read"}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if name, err := s.Resolve("TodoRead"); err != nil || name != "todo_read" {
		t.Errorf("Resolve(TodoRead) = %q, %v; want todo_read", name, err)
	}
	_, err = s.Resolve("write")
	var unknown *UnknownToolError
	if !errors.As(err, &unknown) || unknown.Name != "write" || err.Error() != `unknown tool "write"; available: read, todo_read` {
		t.Errorf("Resolve(write) err = %v; want an unknown tool listing read, todo_read", err)
	}
}
