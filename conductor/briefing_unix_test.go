//go:build unix

package conductor

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/indusagi/induscode/internal/testtree"
)

// AGENTS.md or CLAUDE.md planted as a link to /dev/zero, a named pipe, a
// huge sparse file or a link out of the workspace is left out of the
// briefing with a warning naming it, at once.
func TestPlantedInstructionsAreAWarning(t *testing.T) {
	for _, name := range []string{"AGENTS.md", "CLAUDE.md"} {
		for _, h := range testtree.Hostiles(false) {
			t.Run(name+"/"+h.Name, func(t *testing.T) {
				ws, outside := t.TempDir(), t.TempDir()
				path := filepath.Join(ws, name)
				h.Plant(t, path, outside, "PLANTED instructions")
				var text string
				var warnings []string
				testtree.NoHang(t, "briefing", func() { text, warnings = briefing(ws, nil, "") })
				if strings.Contains(text, "PLANTED") || strings.Contains(text, "Project instructions") {
					t.Errorf("the planted %s reached the briefing:\n%s", name, text)
				}
				if len(warnings) != 1 || !strings.Contains(warnings[0], path) {
					t.Errorf("warnings %q: want one naming %s", warnings, path)
				}
			})
		}
	}
}
