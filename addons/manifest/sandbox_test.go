package manifest

import (
	"strings"
	"testing"

	"github.com/indusagi/induscode/addons"
)

func TestManifestSandboxGrants(t *testing.T) {
	t.Parallel()
	ok, err := Parse("m.toml", []byte("id = \"a\"\n[sandbox]\nwrite = [\"build\", \"~/.cache/a\", \"/var/tmp/a\"]\nread = [\"~/.nvm\"]\nnetwork = true\n"))
	if err != nil || ok.Sandbox == nil || len(ok.Sandbox.Write) != 3 || !ok.Sandbox.Network {
		t.Fatalf("a good grant: %+v, %v", ok, err)
	}
	for _, tc := range []struct{ name, table, want string }{
		{"protected .git/hooks", "write = [\".git/hooks\"]", "protected path"},
		{"protected beneath .indus", "write = [\".indus/addons/x\"]", "protected path"},
		{"protected .mcp.json", "write = [\"./.mcp.json\"]", "protected path"},
		{"claude settings", "write = [\".claude/settings.local.json\"]", "protected path"},
		{"climbs out", "write = [\"../elsewhere\"]", "climbs out"},
		{"empty", "read = [\" \"]", "empty path"},
		{"unknown field", "exec = true", "unknown field"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("m.toml", []byte("id = \"a\"\n[sandbox]\n"+tc.table+"\n"))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("%s: %v, want an error saying %q", tc.table, err, tc.want)
			}
			if f, ok := err.(*addons.Fault); ok && f.Line != 3 && tc.name != "unknown field" {
				t.Errorf("line %d, want 3", f.Line)
			}
		})
	}
}
