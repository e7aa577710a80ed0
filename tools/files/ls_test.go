package files

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLs(t *testing.T) {
	t.Parallel()
	// tree builds the standard fixture: files, a hidden file, directories
	// and three kinds of symlink.
	tree := func(t *testing.T, dir string) {
		writeFile(t, filepath.Join(dir, "b.go"), "x")
		writeFile(t, filepath.Join(dir, "a.txt"), "x")
		writeFile(t, filepath.Join(dir, ".hidden"), "x")
		writeFile(t, filepath.Join(dir, "debug.log"), "x")
		writeFile(t, filepath.Join(dir, "src", "main.go"), "x")
		os.Mkdir(filepath.Join(dir, "node_modules"), 0o755)
		os.Symlink("a.txt", filepath.Join(dir, "link.txt"))
		os.Symlink("src", filepath.Join(dir, "srclink"))
		os.Symlink("gone", filepath.Join(dir, "broken"))
	}
	tests := []struct {
		name    string
		setup   func(t *testing.T, dir string)
		in      map[string]any
		exact   string
		wantErr []string
	}{
		{name: "sorted with directories and symlinks marked", setup: tree, in: map[string]any{},
			exact: ".hidden\na.txt\nb.go\nbroken -> gone (broken)\ndebug.log\nlink.txt -> a.txt\nnode_modules/\nsrc/\nsrclink -> src/"},
		{name: "a subdirectory", setup: tree, in: map[string]any{"path": "src"},
			exact: "main.go"},
		{name: "ignore by glob and directory-only pattern", setup: tree,
			in:    map[string]any{"ignore": []string{"*.log", "node_modules/", "src/", ".*"}},
			exact: "a.txt\nb.go\nbroken -> gone (broken)\nlink.txt -> a.txt\nsrclink -> src/\n\n[4 entries left out by ignore.]"},
		{name: "a directory-only pattern spares files", setup: tree,
			in:    map[string]any{"ignore": []string{"b.go/"}, "limit": 2},
			exact: ".hidden\na.txt\n\n[Showing 2 of 9 entries, sorted by name. Raise limit (at most 5000) or narrow with ignore to see the rest, or use find.]"},
		{name: "empty directory", setup: func(t *testing.T, dir string) { os.Mkdir(filepath.Join(dir, "e"), 0o755) },
			in: map[string]any{"path": "e"}, exact: "(empty directory)"},
		{name: "everything ignored", setup: tree, in: map[string]any{"path": "src", "ignore": []string{"*"}},
			exact: "(no entries left: all 1 matched ignore)"},
		{name: "bad pattern", setup: tree, in: map[string]any{"ignore": []string{"[x"}},
			wantErr: []string{`ignore pattern "[x" is not a valid glob`}},
		{name: "a file is not a directory", setup: tree, in: map[string]any{"path": "a.txt"},
			wantErr: []string{"a.txt is a regular file, not a directory", "read"}},
		{name: "missing directory", setup: tree, in: map[string]any{"path": "srcx"},
			wantErr: []string{"srcx does not exist", "Did you mean src?"}},
		{name: "limit above the maximum is invalid", setup: tree, in: map[string]any{"limit": MaxListLimit + 1},
			wantErr: []string{"field limit"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env, dir := newEnv(t)
			tc.setup(t, dir)
			r := call(t, LsTool(), env, tc.in)
			if tc.wantErr != nil {
				mustFail(t, r, tc.wantErr...)
				return
			}
			if got := mustOK(t, r); got != tc.exact {
				t.Errorf("got\n%s\nwant\n%s", got, tc.exact)
			}
		})
	}
}

// A directory larger than the limit and than one ReadDir batch shows the
// first names in order and counts them all.
func TestLsLimitAcrossBatches(t *testing.T) {
	t.Parallel()
	env, dir := newEnv(t)
	const n = lsBatch + 50
	for i := n - 1; i >= 0; i-- {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%05d", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got := mustOK(t, call(t, LsTool(), env, map[string]any{"limit": 3}))
	want := fmt.Sprintf("f00000\nf00001\nf00002\n\n[Showing 3 of %d entries", n)
	if !strings.HasPrefix(got, want) {
		t.Errorf("got %q, want prefix %q", got, want)
	}
	all := mustOK(t, call(t, LsTool(), env, map[string]any{}))
	if lines := strings.Split(all, "\n"); len(lines) != DefaultListLimit+2 || lines[DefaultListLimit-1] != fmt.Sprintf("f%05d", DefaultListLimit-1) {
		t.Errorf("default listing has %d lines, entry %d is %q", len(lines), DefaultListLimit, lines[DefaultListLimit-1])
	}
}

// ls never lists the state folder, which holds the agent's checkpoints and
// logs rather than the project.
func TestLsLeavesOutStateFolder(t *testing.T) {
	t.Parallel()
	env, dir := newEnv(t)
	writeFile(t, filepath.Join(dir, "a.txt"), "x")
	writeFile(t, filepath.Join(dir, ".indusvx", "bg", "p1.log"), "x")
	writeFile(t, filepath.Join(dir, "sub", ".indusvx", "x"), "x")
	if got := mustOK(t, call(t, LsTool(), env, map[string]any{})); got != "a.txt\nsub/" {
		t.Errorf("ls = %q, want a.txt and sub/ only", got)
	}
	if got := mustOK(t, call(t, LsTool(), env, map[string]any{"path": "sub"})); got != "(empty directory)" {
		t.Errorf("ls sub = %q, want an empty directory", got)
	}
}
