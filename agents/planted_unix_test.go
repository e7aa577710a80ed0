//go:build unix

package agents

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/indusagi/induscode/internal/testtree"
)

// A profile under .indus/agents planted as a link to /dev/zero, a named
// pipe, a huge sparse file or a link out of the workspace (or in a folder
// linked out) loads nothing and is a fault naming it, at once.
func TestPlantedProfileIsAFault(t *testing.T) {
	for _, h := range testtree.Hostiles(true) {
		t.Run(h.Name, func(t *testing.T) {
			ws, outside := t.TempDir(), t.TempDir()
			path := filepath.Join(ws, ".indus", "agents", "planted.toml")
			h.Plant(t, path, outside, `prompt = "planted"`)
			var profiles []Profile
			var faults []string
			testtree.NoHang(t, "Discover", func() {
				ps, fs := Discover(ws)
				profiles = ps
				for _, f := range fs {
					faults = append(faults, f.Error())
				}
			})
			if len(profiles) != 0 {
				t.Errorf("profiles %v loaded from a planted file", profiles)
			}
			if len(faults) != 1 || !strings.Contains(faults[0], path) {
				t.Errorf("faults %q: want one naming %s", faults, path)
			}
		})
	}
}
