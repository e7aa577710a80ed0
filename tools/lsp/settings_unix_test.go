//go:build unix

package lsp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/indusagi/induscode/internal/testtree"
)

// A repository that plants its .indusvx/settings.json as a link to
// /dev/zero, a named pipe or a sparse file of gigabytes (or a link out of
// the workspace) gets a clear error from the session start, not an
// out-of-memory kill or a hang.
func TestPlantedWorkspaceSettingsAreRefused(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	for _, h := range testtree.Hostiles(true) {
		t.Run(h.Name, func(t *testing.T) {
			dir := t.TempDir()
			settings := filepath.Join(dir, ".indusvx", "settings.json")
			h.Plant(t, settings, t.TempDir(), `{}`)
			var err error
			testtree.NoHang(t, "LoadConfig", func() { _, err = LoadConfig(dir) })
			if err == nil || !strings.Contains(err.Error(), settings) {
				t.Errorf("LoadConfig: %v, want an error naming %s", err, settings)
			}
		})
	}
}

// The user's own settings file may be a link (a dotfiles manager's).
func TestUserSettingsMayBeALink(t *testing.T) {
	xdg, dotfiles := t.TempDir(), t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", xdg)
	real := filepath.Join(dotfiles, "settings.json")
	os.WriteFile(real, []byte(`{"lsp":{"go":{"disabled":true}}}`), 0o644)
	os.MkdirAll(filepath.Join(xdg, "indusvx"), 0o755)
	os.Symlink(real, filepath.Join(xdg, "indusvx", "settings.json"))
	cfg, err := LoadConfig(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := cfg.Servers["go"]; ok {
		t.Error("the linked user settings were not applied")
	}
}
