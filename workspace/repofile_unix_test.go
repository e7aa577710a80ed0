//go:build unix

package workspace

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/indusagi/induscode/internal/testtree"
)

// Every plant a repository can put where a config belongs is refused with
// an error naming the file: no hang on a pipe, no endless read of
// /dev/zero, no gigabytes of a sparse file, nothing read through a link out.
func TestReadRepoFileRefusesPlants(t *testing.T) {
	for _, nested := range []bool{false, true} {
		for _, h := range testtree.Hostiles(nested) {
			t.Run(h.Name, func(t *testing.T) {
				ws, outside := t.TempDir(), t.TempDir()
				path := filepath.Join(ws, "c.json")
				if nested {
					path = filepath.Join(ws, ".claude", "settings.json")
				}
				h.Plant(t, path, outside, `{"ok":true}`)
				var b []byte
				var err error
				testtree.NoHang(t, h.Name, func() { b, err = ReadRepoFile(ws, path, MaxConfigFile) })
				if err == nil || !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), path) {
					t.Fatalf("read %q, err %v: want a refusal naming %s", b, err, path)
				}
			})
		}
	}
}

func TestReadRepoFile(t *testing.T) {
	ws := t.TempDir()
	testtree.Write(t, ws, map[string]string{"a.json": "{}", "sub/b.md": "brief", "big": strings.Repeat("x", 100)})
	if err := os.Symlink("sub/b.md", filepath.Join(ws, "in.md")); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{"a.json": "{}", filepath.Join(ws, "sub/b.md"): "brief", "in.md": "brief"} {
		if b, err := ReadRepoFile(ws, path, 10); err != nil || string(b) != want {
			t.Errorf("%s: %q %v", path, b, err)
		}
	}
	if _, err := ReadRepoFile(ws, "big", 99); !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "more than 99 bytes") {
		t.Errorf("a file over the bound: %v", err)
	}
	if _, err := ReadRepoFile(ws, "gone.json", 10); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file: %v, want fs.ErrNotExist", err)
	}
	// The user's own file, outside the workspace, follows its links but
	// is still bounded and must be regular.
	if _, err := ReadRepoFile("", "/dev/zero", 10); !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "a device") {
		t.Errorf("/dev/zero as the user's file: %v", err)
	}
	// Under the state folder the state's own funnel refuses links.
	state := At(ws).State()
	if err := os.MkdirAll(state, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(state, "mcp.json")); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadRepoFile(ws, filepath.Join(state, "mcp.json"), 10); !errors.Is(err, ErrRefused) {
		t.Errorf("a link in the state folder: %v", err)
	}
}
