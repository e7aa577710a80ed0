//go:build unix

package conductor

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// The workspace's settings file is read with a bound and never waited
// on: a sparse file of gigabytes, a link to /dev/zero or a named pipe is
// an error naming it.
func TestPlantedSettingsAreRefused(t *testing.T) {
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
		dir := t.TempDir()
		os.MkdirAll(filepath.Join(dir, ".indusvx"), 0o755)
		settings := filepath.Join(dir, ".indusvx", "settings.json")
		if err := plant(settings); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadSettings(dir); err == nil || !strings.Contains(err.Error(), settings) {
			t.Errorf("%s: LoadSettings gave %v, want an error naming the file", name, err)
		}
	}
}
