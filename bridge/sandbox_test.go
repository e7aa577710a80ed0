package bridge

import (
	"strings"
	"testing"

	"github.com/indusagi/induscode/bridge/mcpconfig"
	"github.com/indusagi/induscode/internal/jail"
)

// A row's "sandbox" confines its server; a mode that is not one is never
// read as "off": the row is skipped with a warning.
func TestConfigSandboxRow(t *testing.T) {
	t.Parallel()
	got, warns := mcpconfig.Parse([]byte(`{"servers":{
		"a":{"command":"a","sandbox":"workspace-write","sandboxNetwork":true},
		"b":{"command":"b"},
		"c":{"command":"c","sandbox":"strict"}}}`), "/proj/.mcp.json", nil)
	if len(got) != 2 || got[0].Sandbox != jail.WorkspaceWrite || !got[0].SandboxNetwork || got[1].Sandbox != "" {
		t.Fatalf("servers: %+v", got)
	}
	if len(warns) != 1 || !strings.Contains(warns[0].String(), `server "c": unknown sandbox mode "strict"`) || !strings.Contains(warns[0].String(), "skipped") {
		t.Errorf("warnings: %v", warns)
	}
}
