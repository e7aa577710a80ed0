package session

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/indusagi/induscode/deck"
	"github.com/indusagi/induscode/internal/testpeer"
)

// filesystemConfig grafts the real server-filesystem, serving dir, as
// "fs", with an optional tools filter.
func filesystemConfig(t *testing.T, dir string, filter map[string]any) string {
	t.Helper()
	entry := testpeer.NPMFile(t, "@modelcontextprotocol/server-filesystem/dist/index.js")
	row := map[string]any{"command": testpeer.Node(t), "args": []string{entry, dir}}
	if filter != nil {
		row["tools"] = filter
	}
	b, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"fs": row}})
	p := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func names(s *Session) map[string]bool {
	out := make(map[string]bool)
	for _, t := range s.Tools() {
		out[t.Spec().Name] = true
	}
	return out
}

// The read-only profile grafts server-filesystem's read tools and leaves
// out its writing ones, saying why; a tool the server marks read-only is
// read-only on the deck.
func TestReadOnlyProfileFiltersGrafts(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s, err := Open(context.Background(), Options{Dir: dir, Profile: deck.Authoring, MCP: []string{filesystemConfig(t, dir, nil)}, Warn: func(m string) { t.Log(m) }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got := names(s)
	if !got["fs__read_text_file"] || !got["fs__list_directory"] {
		t.Errorf("read tools missing: %v", got)
	}
	for _, w := range []string{"fs__write_file", "fs__edit_file", "fs__move_file", "fs__create_directory"} {
		if got[w] {
			t.Errorf("profile authoring grafted %s", w)
		}
	}
	var why string
	for _, o := range s.Omitted() {
		if o.Name == "fs__write_file" {
			why = o.Reason
		}
	}
	if !strings.Contains(why, "read-only") {
		t.Errorf("write_file left out without a reason: %+v", s.Omitted())
	}
	for _, tl := range s.Tools() {
		if tl.Spec().Name == "fs__read_text_file" && !tl.Spec().ReadOnly {
			t.Error("read_text_file, marked readOnlyHint by its server, is not read-only on the deck")
		}
	}
	// Profile all grafts them all.
	all, err := Open(context.Background(), Options{Dir: dir, MCP: []string{filesystemConfig(t, dir, nil)}, Warn: func(string) {}})
	if err != nil {
		t.Fatal(err)
	}
	defer all.Close()
	if !names(all)["fs__write_file"] {
		t.Error("profile all left out write_file")
	}
}

// A config row's allow and deny globs choose the grafted tools.
func TestConfigToolFilter(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := filesystemConfig(t, dir, map[string]any{"allow": []string{"read_*", "list_directory"}, "deny": []string{"read_media_file"}})
	s, err := Open(context.Background(), Options{Dir: dir, MCP: []string{cfg}, Warn: func(m string) { t.Log(m) }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var grafted []string
	for n := range names(s) {
		if strings.HasPrefix(n, "fs__") {
			grafted = append(grafted, n)
		}
	}
	want := map[string]bool{"fs__read_file": true, "fs__read_text_file": true, "fs__read_multiple_files": true, "fs__list_directory": true}
	if len(grafted) != len(want) {
		t.Errorf("grafted %v, want %v", grafted, want)
	}
	for _, n := range grafted {
		if !want[n] {
			t.Errorf("grafted %s", n)
		}
	}
}

// A built-in call mounts nothing: a configured server that would hang
// costs nothing, and its command never runs.
func TestMountNoneStartsNothing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	marker := filepath.Join(dir, "started")
	cfg := filepath.Join(dir, "mcp.json")
	b, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"hang": map[string]any{
		"command": "sh", "args": []string{"-c", "touch " + marker + "; sleep 30"}}}})
	if err := os.WriteFile(cfg, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "f.txt"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	s, err := Open(context.Background(), Options{Dir: dir, MCP: []string{cfg}, Mount: MountNone})
	if err != nil {
		t.Fatal(err)
	}
	res := s.Run(context.Background(), "read", []byte(`{"path":"f.txt"}`))
	s.Close()
	if res.IsError {
		t.Fatal(res.PlainText())
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("a built-in call with a hanging server configured took %v", d)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the server's command ran")
	}
}
