//go:build unix

package lsp

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A repository that plants its .indusvx/settings.json as a link to
// /dev/zero, a named pipe or a sparse file of gigabytes gets a clear
// error from the session start, not an out-of-memory kill or a hang.
func TestPlantedWorkspaceSettingsAreRefused(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	for name, plant := range map[string]func(path string) error{
		"link to /dev/zero": func(p string) error { return os.Symlink("/dev/zero", p) },
		"named pipe":        func(p string) error { return syscall.Mkfifo(p, 0o644) },
		"sparse 4 GiB file": func(p string) error {
			f, err := os.Create(p)
			if err != nil {
				return err
			}
			defer f.Close()
			return f.Truncate(4 << 30)
		},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			os.MkdirAll(filepath.Join(dir, ".indusvx"), 0o755)
			settings := filepath.Join(dir, ".indusvx", "settings.json")
			if err := plant(settings); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { _, err := LoadConfig(dir); done <- err }()
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), settings) {
					t.Errorf("LoadConfig: %v, want an error naming %s", err, settings)
				}
			case <-time.After(time.Minute):
				t.Fatal("LoadConfig hangs on the planted settings file")
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
