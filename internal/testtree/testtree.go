// Package testtree writes the small file trees tests start from: a map of
// slash-separated paths to contents becomes files under a folder, with the
// folders between created. Tests only; a failure to write ends the test.
package testtree

import (
	"os"
	"path/filepath"
	"testing"
)

// Write creates files (path -> content) under dir, making the folders
// each path needs.
func Write(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
