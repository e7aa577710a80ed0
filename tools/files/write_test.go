package files

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/indusagi/induscode/tool"
)

func TestWrite(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		setup   func(t *testing.T, f fixture)
		in      map[string]any
		wantErr []string                      // substrings of the error; nil means success
		want    string                        // substring of the success text
		check   func(t *testing.T, f fixture) // what is on disk afterwards
	}{
		{name: "creates a file and its parent directories",
			in:   map[string]any{"path": "a/b/new.txt", "content": "hi\nthere\n"},
			want: "Created a/b/new.txt (9 bytes, 2 lines).",
			check: func(t *testing.T, f fixture) {
				if got := readFile(t, filepath.Join(f.dir, "a/b/new.txt")); got != "hi\nthere\n" {
					t.Errorf("content %q", got)
				}
			}},
		{name: "a path ending in a slash names a directory, not a file",
			in:      map[string]any{"path": "notes/", "content": "x"},
			wantErr: []string{`cannot write "notes/"`, "ends with a slash", "notes/file.txt"},
			check: func(t *testing.T, f fixture) {
				if _, err := os.Lstat(filepath.Join(f.dir, "notes")); err == nil {
					t.Error("notes was created")
				}
			}},
		{name: "overwriting needs a read",
			setup:   func(t *testing.T, f fixture) { writeFile(t, filepath.Join(f.dir, "x.txt"), "old\n") },
			in:      map[string]any{"path": "x.txt", "content": "new\n"},
			wantErr: []string{"x.txt was not written", "this session has not read it", "Read it first"},
			check: func(t *testing.T, f fixture) {
				if got := readFile(t, filepath.Join(f.dir, "x.txt")); got != "old\n" {
					t.Errorf("file changed to %q", got)
				}
			}},
		{name: "overwrite after a read",
			setup: func(t *testing.T, f fixture) {
				writeFile(t, filepath.Join(f.dir, "x.txt"), "old\n")
				mustOK(t, call(t, ReadTool(), f.env, map[string]any{"path": "x.txt"}))
			},
			in:   map[string]any{"path": "x.txt", "content": "brand new\n"},
			want: "Updated x.txt (10 bytes, 1 line; it had 4 bytes).",
			check: func(t *testing.T, f fixture) {
				if got := readFile(t, filepath.Join(f.dir, "x.txt")); got != "brand new\n" {
					t.Errorf("content %q", got)
				}
			}},
		{name: "a change since the read is caught even with the same size and mtime",
			setup: func(t *testing.T, f fixture) {
				p := filepath.Join(f.dir, "x.txt")
				writeFile(t, p, "aaaa\n")
				stamp := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
				os.Chtimes(p, stamp, stamp)
				mustOK(t, call(t, ReadTool(), f.env, map[string]any{"path": "x.txt"}))
				writeFile(t, p, "bbbb\n")
				os.Chtimes(p, stamp, stamp)
			},
			in:      map[string]any{"path": "x.txt", "content": "mine\n"},
			wantErr: []string{"changed since it was read", "Read it again"},
			check: func(t *testing.T, f fixture) {
				if got := readFile(t, filepath.Join(f.dir, "x.txt")); got != "bbbb\n" {
					t.Errorf("the other writer's content was lost: %q", got)
				}
			}},
		{name: "keeps the file mode",
			setup: func(t *testing.T, f fixture) {
				p := filepath.Join(f.dir, "run.sh")
				writeFile(t, p, "#!/bin/sh\n")
				os.Chmod(p, 0o751)
				mustOK(t, call(t, ReadTool(), f.env, map[string]any{"path": "run.sh"}))
			},
			in: map[string]any{"path": "run.sh", "content": "#!/bin/sh\necho hi\n"},
			check: func(t *testing.T, f fixture) {
				fi, err := os.Stat(filepath.Join(f.dir, "run.sh"))
				if err != nil || fi.Mode().Perm() != 0o751 {
					t.Errorf("mode %v (%v), want 0751", fi.Mode(), err)
				}
			}},
		{name: "absolute path outside the workspace is refused",
			in:      map[string]any{"path": "OUTSIDE/evil.txt", "content": "x"},
			wantErr: []string{"outside the workspace", "only files inside the workspace can be changed"},
			check:   noFile("OUTSIDE/evil.txt")},
		{name: "dot-dot out of the workspace is refused",
			in:      map[string]any{"path": "../evil.txt", "content": "x"},
			wantErr: []string{"outside the workspace"}},
		{name: "a symlinked directory leading out is refused",
			setup:   func(t *testing.T, f fixture) { os.Symlink(f.outside, filepath.Join(f.dir, "out")) },
			in:      map[string]any{"path": "out/evil.txt", "content": "x"},
			wantErr: []string{"leads through a symlink", "outside"},
			check:   noFile("OUTSIDE/evil.txt")},
		{name: "a symlinked file leading out is refused",
			setup: func(t *testing.T, f fixture) {
				writeFile(t, filepath.Join(f.outside, "secret"), "keep\n")
				os.Symlink(filepath.Join(f.outside, "secret"), filepath.Join(f.dir, "link"))
				mustOK(t, call(t, ReadTool(), f.env, map[string]any{"path": "link"}))
			},
			in:      map[string]any{"path": "link", "content": "x"},
			wantErr: []string{"leads through a symlink"},
			check: func(t *testing.T, f fixture) {
				if got := readFile(t, filepath.Join(f.outside, "secret")); got != "keep\n" {
					t.Errorf("outside file changed: %q", got)
				}
			}},
		{name: "a symlink inside the workspace is written through and kept",
			setup: func(t *testing.T, f fixture) {
				writeFile(t, filepath.Join(f.dir, "real.txt"), "old\n")
				os.Symlink("real.txt", filepath.Join(f.dir, "alias.txt"))
				mustOK(t, call(t, ReadTool(), f.env, map[string]any{"path": "alias.txt"}))
			},
			in: map[string]any{"path": "alias.txt", "content": "new\n"},
			check: func(t *testing.T, f fixture) {
				if got := readFile(t, filepath.Join(f.dir, "real.txt")); got != "new\n" {
					t.Errorf("target content %q", got)
				}
				if fi, err := os.Lstat(filepath.Join(f.dir, "alias.txt")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
					t.Errorf("alias.txt is no longer a symlink: %v %v", fi.Mode(), err)
				}
			}},
		{name: "a read through a symlink satisfies a write to its target",
			setup: func(t *testing.T, f fixture) {
				writeFile(t, filepath.Join(f.dir, "real.txt"), "old\n")
				os.Symlink("real.txt", filepath.Join(f.dir, "alias.txt"))
				mustOK(t, call(t, ReadTool(), f.env, map[string]any{"path": "alias.txt"}))
			},
			in: map[string]any{"path": "real.txt", "content": "new\n"}},
		{name: "a dangling symlink is refused",
			setup:   func(t *testing.T, f fixture) { os.Symlink("nowhere.txt", filepath.Join(f.dir, "dangling")) },
			in:      map[string]any{"path": "dangling", "content": "x"},
			wantErr: []string{"is a symlink to nowhere.txt, which does not exist"}},
		{name: "a read-only file is refused",
			setup: func(t *testing.T, f fixture) {
				p := filepath.Join(f.dir, "locked.txt")
				writeFile(t, p, "keep\n")
				os.Chmod(p, 0o444)
				mustOK(t, call(t, ReadTool(), f.env, map[string]any{"path": "locked.txt"}))
			},
			in:      map[string]any{"path": "locked.txt", "content": "x"},
			wantErr: []string{"locked.txt is read-only (mode -r--r--r--)", "chmod u+w"},
			check: func(t *testing.T, f fixture) {
				if got := readFile(t, filepath.Join(f.dir, "locked.txt")); got != "keep\n" {
					t.Errorf("read-only file changed: %q", got)
				}
			}},
		{name: "a directory is refused",
			setup:   func(t *testing.T, f fixture) { os.Mkdir(filepath.Join(f.dir, "d"), 0o755) },
			in:      map[string]any{"path": "d", "content": "x"},
			wantErr: []string{"is a directory"}},
		{name: "a file where a parent directory should be",
			setup:   func(t *testing.T, f fixture) { writeFile(t, filepath.Join(f.dir, "plain"), "x") },
			in:      map[string]any{"path": "plain/child.txt", "content": "x"},
			wantErr: []string{"plain"}},
		{name: "missing content is invalid input",
			in:      map[string]any{"path": "x.txt"},
			wantErr: []string{"content"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			base := t.TempDir()
			f := fixture{dir: filepath.Join(base, "ws"), outside: filepath.Join(base, "OUTSIDE")}
			os.Mkdir(f.dir, 0o755)
			os.Mkdir(f.outside, 0o755)
			f.env = tool.NewEnv(f.dir)
			if tc.setup != nil {
				tc.setup(t, f)
			}
			in := tc.in
			if p, ok := in["path"].(string); ok && strings.HasPrefix(p, "OUTSIDE/") {
				in = map[string]any{"path": filepath.Join(base, p), "content": in["content"]}
			}
			r := call(t, WriteTool(), f.env, in)
			if tc.wantErr != nil {
				mustFail(t, r, tc.wantErr...)
			} else if got := mustOK(t, r); !strings.Contains(got, tc.want) {
				t.Errorf("text %q does not contain %q", got, tc.want)
			}
			if tc.check != nil {
				tc.check(t, f)
			}
			leftovers, _ := filepath.Glob(filepath.Join(f.dir, ".*.tmp-*"))
			if len(leftovers) > 0 {
				t.Errorf("temporary files left behind: %v", leftovers)
			}
		})
	}
}

// fixture is a workspace with a directory beside it, outside it.
type fixture struct {
	env     *tool.Env
	dir     string // the workspace
	outside string // a directory outside it
}

// noFile checks that OUTSIDE/name was not created.
func noFile(rel string) func(t *testing.T, f fixture) {
	return func(t *testing.T, f fixture) {
		p := filepath.Join(f.outside, strings.TrimPrefix(rel, "OUTSIDE/"))
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s was created outside the workspace", p)
		}
	}
}

// Writing into an extra workspace root is allowed; the session's read
// state then lets an edit follow without a read.
func TestWriteExtraRootAndRemember(t *testing.T) {
	t.Parallel()
	dir, extra := t.TempDir(), t.TempDir()
	env := tool.NewEnv(dir, extra)
	p := filepath.Join(extra, "notes.md")
	mustOK(t, call(t, WriteTool(), env, map[string]any{"path": p, "content": "one\ntwo\n"}))
	mustOK(t, call(t, EditTool(), env, map[string]any{"path": p, "old_string": "two", "new_string": "2"}))
	mustOK(t, call(t, WriteTool(), env, map[string]any{"path": p, "content": "fresh\n"}))
	if got := readFile(t, p); got != "fresh\n" {
		t.Errorf("content %q", got)
	}
}
