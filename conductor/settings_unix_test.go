//go:build unix

package conductor

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/indusagi/induscode/internal/testtree"
)

// The workspace's settings file is read with a bound and never waited
// on: a sparse file of gigabytes, a link to /dev/zero or a named pipe
// (or a link out of the workspace) is an error naming it.
func TestPlantedSettingsAreRefused(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	for _, h := range testtree.Hostiles(true) {
		t.Run(h.Name, func(t *testing.T) {
			dir := t.TempDir()
			settings := filepath.Join(dir, ".indusvx", "settings.json")
			h.Plant(t, settings, t.TempDir(), `{}`)
			var err error
			testtree.NoHang(t, "LoadSettings", func() { _, err = LoadSettings(dir) })
			if err == nil || !strings.Contains(err.Error(), settings) {
				t.Errorf("LoadSettings gave %v, want an error naming the file", err)
			}
		})
	}
}
