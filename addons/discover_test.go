package addons

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/indusagi/induscode/internal/testtree"
)

func TestDiscover(t *testing.T) {
	ws := t.TempDir()
	ad := filepath.Join(ws, Dir)
	testtree.Write(t, ad, map[string]string{
		"zeta/manifest.toml":    `id = "z"`,
		"alpha/manifest.toml":   `id = "a"`,
		"lint.ts":               "export default {}",
		"notes.md":              "not an addon",
		".hidden/manifest.toml": `id = "h"`,
		".secret.js":            "",
		"pkg/package.json":      `{"indusAddon": "src/main.ts"}`,
		"pkg/src/main.ts":       "",
		"idx/index.mjs":         "",
		"empty/readme.txt":      "",
		"badpkg/package.json":   `{"name": "x"}`,
		"both/manifest.toml":    `id = "both"`,
		"both/index.js":         "",
	})
	got := Discover(ad)
	want := []string{
		filepath.Join(ad, "alpha"),
		filepath.Join(ad, "both"),
		filepath.Join(ad, "idx", "index.mjs"),
		filepath.Join(ad, "lint.ts"),
		filepath.Join(ad, "pkg", "src", "main.ts"),
		filepath.Join(ad, "zeta"),
	}
	if !slices.Equal(got, want) {
		t.Fatalf("Discover:\n got %q\nwant %q", got, want)
	}
	ids := map[string]ID{}
	for _, s := range Sources(Discovery{Workspace: ws}) {
		ids[filepath.Base(s.Path)] = s.ID
	}
	wantIDs := map[string]ID{"alpha": "alpha", "both": "both", "index.mjs": "idx", "lint.ts": "lint", "main.ts": "main", "zeta": "zeta"}
	for k, v := range wantIDs {
		if ids[k] != v {
			t.Errorf("id of %s = %q, want %q", k, ids[k], v)
		}
	}
}

func TestDiscoverMissingFolderIsNoAddons(t *testing.T) {
	if got := Sources(Discovery{Workspace: t.TempDir()}); len(got) != 0 {
		t.Errorf("a workspace without .indus/addons gave %v", got)
	}
}

func TestSourcesExplicitPathsAppendedAndDeduplicated(t *testing.T) {
	ws := t.TempDir()
	testtree.Write(t, ws, map[string]string{
		".indus/addons/a/manifest.toml": `id = "a"`,
		"extra/b/manifest.toml":         `id = "b"`,
	})
	got := Sources(Discovery{Workspace: ws, Paths: []string{
		"extra/b",
		"\u200b" + filepath.Join(ws, ".indus/addons/a"), // invisible space, and a duplicate
		filepath.Join(ws, "extra", "b") + "/",
	}})
	var paths []string
	for _, s := range got {
		paths = append(paths, s.Path)
	}
	want := []string{filepath.Join(ws, ".indus/addons/a"), filepath.Join(ws, "extra/b")}
	if !slices.Equal(paths, want) {
		t.Errorf("sources %q, want %q", paths, want)
	}
}

func TestDeriveIDOfManifestFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "guard")
	testtree.Write(t, dir, map[string]string{"manifest.toml": `id = "g"`})
	if id := DeriveID(filepath.Join(dir, "manifest.toml")); id != "guard" {
		t.Errorf("id %q, want the folder name guard", id)
	}
	if id := DeriveID(dir); id != "guard" {
		t.Errorf("id %q, want guard", id)
	}
	os.RemoveAll(dir)
}
