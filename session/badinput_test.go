package session

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/indusagi/induscode/approval"
	"github.com/indusagi/induscode/bridge/mcpconfig"
)

// A trust file that is not JSON is an error that names the file and says
// how to recover; nothing is trusted by accident.
func TestCorruptTrustFileIsReported(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ".mcp.json"), []byte(`{"mcpServers":{"x":{"command":"true"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), approval.FileName)
	if err := os.WriteFile(path, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	store := approval.NewStore(path)
	a, err := ReadApprovals(Options{Dir: dir, Approvals: &store}, MCPGroup)
	if err == nil || a.Group(MCPGroup).Approved || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "indusr mcp trust") {
		t.Fatalf("approvals %+v err=%v", a, err)
	}
	var warned string
	servers := untrusted(Options{Approvals: &store, Warn: func(m string) { warned = m }}, dir, []mcpconfig.Server{{Name: "x", Source: filepath.Join(dir, ".mcp.json")}})
	if len(servers) != 0 || !strings.Contains(warned, "malformed") {
		t.Errorf("servers %v started despite a corrupt trust file; warning %q", servers, warned)
	}
}

// A damaged or tampered cache entry is not used: the server is mounted
// instead of its tools being listed from garbage.
func TestDamagedCacheEntryIsIgnored(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := mcpconfig.Server{Name: "fs", Transport: mcpconfig.Stdio, Command: "true"}
	p := cachePath(dir, cfg)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{
		"not JSON":     "{",
		"bad name":     `{"version":1,"server":"fs","fingerprint":"` + rowFingerprint(cfg) + `","at":"` + time.Now().UTC().Format(time.RFC3339) + `","tools":[{"name":"a b","inputSchema":{}}]}`,
		"other server": `{"version":1,"server":"other","fingerprint":"` + rowFingerprint(cfg) + `","at":"` + time.Now().UTC().Format(time.RFC3339) + `","tools":[]}`,
		"stale":        `{"version":1,"server":"fs","fingerprint":"` + rowFingerprint(cfg) + `","at":"2020-01-01T00:00:00Z","tools":[]}`,
	} {
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if specs, ok := loadCached(dir, cfg, time.Now()); ok {
			t.Errorf("%s: used the entry (%v)", name, specs)
		}
	}
}
