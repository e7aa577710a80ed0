package walk

import (
	"context"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/indusagi/induscode/internal/testtree"
)

// TestAdmitsAgreesWithTheWalk: for every file of a tree with ignore files
// at several depths (a negation, a folder rule, .ignore over .gitignore,
// hidden files, a version-control folder, the state folder), Admits says
// what the walk does: true for each file it visits, false for the rest.
func TestAdmitsAgreesWithTheWalk(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		".gitignore": "*.log\nbuild/\n/top.tmp\n",
		"a.go":       "", "b.log": "", "top.tmp": "", "sub/top.tmp": "",
		".hidden/h.txt": "",
		"build/out.txt": "", "src/build/out.txt": "",
		"src/.gitignore": "testdata/\n!keep.log\n",
		"src/keep.log":   "", "src/other.log": "",
		"src/testdata/t.txt": "",
		"src/x/.ignore":      "!*.log\nsecret.txt\n",
		"src/x/y.log":        "", "src/x/secret.txt": "", "src/x/z.go": "",
		".git/config":         "",
		".indusvx/logs/a.txt": "",
		"vendor/.svn/entries": "",
		"vendor/lib/v.go":     "",
	}
	testtree.Write(t, root, files)
	var mu sync.Mutex
	var walked []string
	Walk(context.Background(), Config{Root: root, Visit: func(_ int, f File) {
		f.Release()
		rel, _ := filepath.Rel(root, f.Path)
		mu.Lock()
		walked = append(walked, filepath.ToSlash(rel))
		mu.Unlock()
	}}, &Stats{})
	if len(walked) < 5 || len(walked) == len(files) {
		t.Fatalf("the walk visited %d of %d files: the tree tests nothing", len(walked), len(files))
	}
	for name := range files {
		if got, want := Admits(root, name, false), slices.Contains(walked, name); got != want {
			t.Errorf("Admits(%q) = %v, the walk: %v", name, got, want)
		}
	}
	for dir, want := range map[string]bool{"src": true, "build": false, "src/build": false, "src/testdata": false, ".git": false, "src/x": true} {
		if got := Admits(root, dir, true); got != want {
			t.Errorf("Admits(%q, folder) = %v, want %v", dir, got, want)
		}
	}
	for _, bad := range []string{"", "/a.go", "../a.go", "src/../a.go", "./a.go"} {
		if Admits(root, bad, false) {
			t.Errorf("Admits(%q) = true", bad)
		}
	}
}
