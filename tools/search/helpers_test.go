package search

import (
	"github.com/indusagi/induscode/internal/linematch"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tree makes a directory with the given files (a name ending in / is an
// empty directory) and returns its path.
func tree(t testing.TB, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, body := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if strings.HasSuffix(p, "/") {
			if err := os.MkdirAll(full, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// compileQuery compiles a pattern for the scanner tests.
func compileQuery(pattern string, literal, caseless, multiline bool) (*linematch.Query, error) {
	return linematch.Compile(pattern, linematch.Options{Literal: literal, CaseInsensitive: caseless, Multiline: multiline})
}
