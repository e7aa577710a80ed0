//go:build unix

package manifest

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/indusagi/induscode/addons"
	"github.com/indusagi/induscode/internal/testtree"
)

// A manifest.toml planted as a link to /dev/zero, a named pipe or a huge
// sparse file is a load fault naming the file, at once: before, the loader
// read /dev/zero until memory ran out and waited on the pipe for ever. The
// same plants as an addon folder's package.json do not hang discovery.
func TestPlantedManifestIsAFault(t *testing.T) {
	for _, h := range testtree.Hostiles(true) {
		if strings.Contains(h.Name, "out of the workspace") {
			continue // an addon folder linked out is the approvals' to refuse
		}
		t.Run(h.Name, func(t *testing.T) {
			ws := t.TempDir()
			dir := filepath.Join(ws, ".indus", "addons", "planted")
			file := filepath.Join(dir, addons.ManifestFile)
			h.Plant(t, file, t.TempDir(), "id = \"planted\"\nversion = \"1.0.0\"\n")
			var err error
			testtree.NoHang(t, "Load", func() { _, err = Loader{}.Load(context.Background(), dir) })
			if err == nil || !strings.Contains(err.Error(), file) {
				t.Errorf("Load of a planted manifest: %v, want a fault naming %s", err, file)
			}
			testtree.NoHang(t, "Declared", func() { read(dir) })

			pkg := filepath.Join(ws, ".indus", "addons", "pkg")
			h.Plant(t, filepath.Join(pkg, "package.json"), t.TempDir(), `{"indusAddon": "x.js"}`)
			testtree.NoHang(t, "Discover", func() { addons.Discover(filepath.Join(ws, ".indus", "addons")) })
		})
	}
}
