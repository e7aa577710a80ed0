//go:build unix

package hooks

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/indusagi/induscode/internal/testtree"
)

// .claude/settings.json planted as a link to /dev/zero, a named pipe, a
// huge sparse file or a link out of the project gives no hooks and a
// fault naming it, at once.
func TestPlantedSettingsAreAFault(t *testing.T) {
	valid := `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"./planted.sh"}]}]}}`
	for _, name := range []string{"settings.json", "settings.local.json"} {
		for _, h := range testtree.Hostiles(true) {
			t.Run(name+"/"+h.Name, func(t *testing.T) {
				ws, outside := t.TempDir(), t.TempDir()
				path := filepath.Join(ws, ".claude", name)
				h.Plant(t, path, outside, valid)
				var hs []Hook
				var faults []error
				testtree.NoHang(t, "LoadSettings", func() {
					got, fs := LoadSettings(ws)
					hs = got
					for _, f := range fs {
						faults = append(faults, f)
					}
				})
				if len(hs) != 0 {
					t.Errorf("hooks %v loaded from a planted %s", hs, name)
				}
				// A .claude linked out refuses both files.
				named := false
				for _, f := range faults {
					named = named || strings.Contains(f.Error(), path)
				}
				if !named {
					t.Errorf("faults %v: want one naming %s", faults, path)
				}
			})
		}
	}
}
