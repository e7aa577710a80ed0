//go:build unix

package mcpconfig

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/indusagi/induscode/internal/testtree"
)

// A repository's .mcp.json or .indusvx/mcp.json planted as a link to
// /dev/zero, a named pipe, a huge sparse file or a link out of the
// workspace mounts nothing and is a warning naming it: no hang, no
// unbounded read, no server read through the link.
func TestPlantedConfigIsAWarning(t *testing.T) {
	valid := `{"mcpServers":{"planted":{"command":"echo"}}}`
	for _, name := range []string{".mcp.json", ".indusvx/mcp.json"} {
		for _, h := range testtree.Hostiles(strings.Contains(name, "/")) {
			t.Run(name+"/"+h.Name, func(t *testing.T) {
				ws, outside, home := t.TempDir(), t.TempDir(), t.TempDir()
				path := filepath.Join(ws, filepath.FromSlash(name))
				h.Plant(t, path, outside, valid)
				var servers []Server
				var warnings []Warning
				testtree.NoHang(t, "Load", func() {
					servers, warnings = Loader{LookupEnv: env(map[string]string{"HOME": home})}.Load(ws)
				})
				if len(servers) != 0 {
					t.Errorf("servers %v mounted from a planted %s", servers, name)
				}
				if len(warnings) != 1 || warnings[0].File != path || !strings.Contains(warnings[0].Msg, "not mounted") {
					t.Errorf("warnings %v: want one naming %s", warnings, path)
				}
			})
		}
	}
}
