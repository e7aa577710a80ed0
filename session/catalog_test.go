package session

import (
	"context"
	"testing"
)

// A catalog lists what a session would provide, and fires no lifecycle
// event: an approved SessionStart or SessionEnd hook does not run. The
// same options opened as a session do run it, so the check can fail.
func TestCatalogFiresNoSessionEvents(t *testing.T) {
	t.Parallel()
	dir, store := hookWorkspace(t, map[string]string{
		".claude/settings.json": `{"hooks": {
    "SessionStart": [{"hooks": [{"type": "command", "command": "touch started"}]}],
    "SessionEnd": [{"hooks": [{"type": "command", "command": "touch ended"}]}]
}}`,
	})
	opts := Options{Dir: dir, Approvals: store, ClaudeHooks: true, NoMCP: true, Warn: func(m string) { t.Log(m) }}
	if _, err := Approve(opts, AddonHooks, ClaudeHooks); err != nil {
		t.Fatal(err)
	}
	c, err := Catalog(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Tools()) == 0 {
		t.Error("the catalog lists no tools")
	}
	if res := c.Run(context.Background(), "ls", []byte(`{}`)); !res.IsError {
		t.Error("a catalog ran a call")
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if fileExists(dir, "started") || fileExists(dir, "ended") {
		t.Fatalf("a catalog fired session events: started %v, ended %v", fileExists(dir, "started"), fileExists(dir, "ended"))
	}
	s, err := Open(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if !fileExists(dir, "started") || !fileExists(dir, "ended") {
		t.Fatalf("an opened session did not fire its events: started %v, ended %v", fileExists(dir, "started"), fileExists(dir, "ended"))
	}
}
