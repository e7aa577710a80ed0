package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// stateFiles are the files the layout names, one per folder it names
// (a file inside it) and each file it names itself.
func stateFiles(l Layout) map[string]string {
	return map[string]string{
		"mcp.json":     l.MCPConfig(),
		"ledger.jsonl": l.Ledger(),
		"memory.md":    l.Memory(),
		"session":      l.Session("s"),
		"mcp-cache":    filepath.Join(l.ToolCache(), "x.json"),
		"mcp-logs":     filepath.Join(l.MCPLogs(), "x.log"),
		"checkpoints":  filepath.Join(l.Checkpoints(), "index.json"),
		"sessions":     filepath.Join(l.Sessions(), "x.json"),
		"bg":           filepath.Join(l.Background(), "bash-1.log"),
		"logs":         filepath.Join(l.Logs(), "x.log"),
		"addon-logs":   filepath.Join(l.AddonLogs(), "x.log"),
		"addon-state":  filepath.Join(l.AddonState(), "x.json"),
		"plans":        filepath.Join(l.Plans(), "x.md"),
		"downloads":    filepath.Join(l.Downloads(), "x.bin"),
		"procs":        filepath.Join(l.Procs(), "1-x.json"),
		"locks":        filepath.Join(l.Locks(), "x.lock"),
		"tmp":          filepath.Join(l.Temp(), "x"),
	}
}

// writes are the ways a writer reaches a state file.
var writes = map[string]func(path string) error{
	"append": func(p string) error {
		if err := MkdirAll(filepath.Dir(p), 0o700); err != nil {
			return err
		}
		f, err := OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
		if err == nil {
			_, err = f.WriteString("secret\n")
			f.Close()
		}
		return err
	},
	"replace": func(p string) error {
		if err := MkdirAll(filepath.Dir(p), 0o700); err != nil {
			return err
		}
		return WriteFile(p, []byte("secret\n"), 0o600)
	},
	"read": func(p string) error {
		_, err := ReadFile(p)
		return err
	},
}

// attack plants something in the workspace ws, whose state file is file,
// pointing at out (an empty folder outside the workspace); it returns the
// path that must be named in the refusal.
type attack func(t *testing.T, ws, file, out string) string

var attacks = map[string]attack{
	"state folder is a symlink": func(t *testing.T, ws, _, out string) string {
		must(t, os.Symlink(out, filepath.Join(ws, StateDir)))
		return filepath.Join(ws, StateDir)
	},
	"folder is a symlink": func(t *testing.T, ws, file, out string) string {
		dir := filepath.Dir(file)
		if filepath.Base(dir) == StateDir {
			// A file right in the state folder: link the file instead.
			must(t, os.MkdirAll(dir, 0o755))
			must(t, os.Symlink(filepath.Join(out, "f"), file))
			return file
		}
		must(t, os.MkdirAll(filepath.Dir(dir), 0o755))
		must(t, os.Symlink(out, dir))
		return dir
	},
	"file is a symlink": func(t *testing.T, ws, file, out string) string {
		must(t, os.MkdirAll(filepath.Dir(file), 0o755))
		must(t, os.WriteFile(filepath.Join(out, "f"), []byte("mine\n"), 0o600))
		must(t, os.Symlink(filepath.Join(out, "f"), file))
		return file
	},
	"file is a named pipe": func(t *testing.T, ws, file, out string) string {
		must(t, os.MkdirAll(filepath.Dir(file), 0o755))
		must(t, syscall.Mkfifo(file, 0o600))
		return file
	},
	"folder owned by another user": func(t *testing.T, ws, file, out string) string {
		needRoot(t)
		dir := filepath.Dir(file)
		must(t, os.MkdirAll(dir, 0o777))
		must(t, os.Chown(dir, 65534, 65534))
		return dir
	},
	"file owned by another user": func(t *testing.T, ws, file, out string) string {
		needRoot(t)
		must(t, os.MkdirAll(filepath.Dir(file), 0o755))
		must(t, os.WriteFile(file, nil, 0o666))
		must(t, os.Chown(file, 65534, 65534))
		return file
	},
}

func needRoot(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("planting another user's file needs root")
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// Every state file the layout names, reached every way, under every
// attack: refused with an error that names the planted entry and says how
// to remove it, nothing written outside the workspace, no wait on a pipe.
func TestStatePathsRefusePlantedEntries(t *testing.T) {
	t.Parallel()
	for entry := range stateFiles(At("/x")) {
		for how, write := range writes {
			for name, plant := range attacks {
				t.Run(entry+"/"+how+"/"+name, func(t *testing.T) {
					t.Parallel()
					ws, out := t.TempDir(), t.TempDir()
					file := stateFiles(At(ws))[entry]
					named := plant(t, ws, file, out)
					before := listing(t, out)
					done := make(chan error, 1)
					go func() { done <- write(file) }()
					var err error
					select {
					case err = <-done:
					case <-time.After(10 * time.Second):
						t.Fatal("the write waits on a planted entry")
					}
					if !errors.Is(err, ErrUnsafe) {
						t.Fatalf("err = %v, want a refusal", err)
					}
					if msg := err.Error(); !strings.Contains(msg, named) || !strings.Contains(msg, "rm ") {
						t.Errorf("the refusal does not name %s and how to remove it: %s", named, msg)
					}
					if after := listing(t, out); after != before {
						t.Errorf("written outside the workspace:\nbefore %s\nafter  %s", before, after)
					}
				})
			}
		}
	}
}

// listing describes a folder's files and contents.
func listing(t *testing.T, dir string) string {
	t.Helper()
	var sb strings.Builder
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		b, _ := os.ReadFile(p)
		sb.WriteString(p + "=" + string(b) + ";")
		return nil
	})
	return sb.String()
}

// Without an attack every way works, and the state folder gets its
// .gitignore when created.
func TestStatePathsWork(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	for entry, file := range stateFiles(At(ws)) {
		for _, how := range []string{"append", "replace", "read"} {
			if err := writes[how](file); err != nil {
				t.Errorf("%s %s: %v", how, entry, err)
			}
		}
		if b, err := os.ReadFile(file); err != nil || string(b) != "secret\n" {
			t.Errorf("%s holds %q (%v)", entry, b, err)
		}
	}
	if _, err := os.Stat(filepath.Join(ws, StateDir, ".gitignore")); err != nil {
		t.Error(err)
	}
}

// Remove, Rename and Lstat act on a planted link itself, never on what it
// names; ReadDir and Sweep refuse a linked folder.
func TestStateOperationsNeverFollowLinks(t *testing.T) {
	t.Parallel()
	ws, out := t.TempDir(), t.TempDir()
	l := At(ws)
	target := filepath.Join(out, "keep")
	must(t, os.WriteFile(target, []byte("mine"), 0o600))
	must(t, MkdirAll(l.Background(), 0o700))
	link := filepath.Join(l.Background(), "x.log")
	must(t, os.Symlink(target, link))
	if fi, err := Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("Lstat: %v, %v", fi, err)
	}
	must(t, Rename(link, link+".1"))
	must(t, Remove(link+".1"))
	if b, err := os.ReadFile(target); err != nil || string(b) != "mine" {
		t.Errorf("the link's target changed: %q, %v", b, err)
	}
	must(t, os.Symlink(out, l.Procs()))
	if _, err := ReadDir(l.Procs()); !errors.Is(err, ErrUnsafe) {
		t.Errorf("ReadDir of a linked folder: %v", err)
	}
	old := time.Now().Add(-2 * time.Hour)
	leftover := filepath.Join(out, ".tmp-999999999-0123456789ab")
	must(t, os.WriteFile(leftover, nil, 0o600))
	must(t, os.Chtimes(leftover, old, old))
	Sweep(l.Procs())
	if _, err := os.Stat(leftover); err != nil {
		t.Error("Sweep removed a file outside the workspace")
	}
}

// An old background folder that is a symlink is not emptied into the
// workspace.
func TestMigrateLegacyRefusesALink(t *testing.T) {
	t.Parallel()
	ws, out := t.TempDir(), t.TempDir()
	must(t, os.WriteFile(filepath.Join(out, "notes"), []byte("mine"), 0o600))
	l := At(ws)
	must(t, os.Symlink(out, l.LegacyBackground()))
	if err := l.MigrateLegacy(); !errors.Is(err, ErrUnsafe) {
		t.Errorf("err = %v, want a refusal", err)
	}
	if _, err := os.Stat(filepath.Join(out, "notes")); err != nil {
		t.Error("a file was moved out of the folder the link names")
	}
}
