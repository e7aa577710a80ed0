package files

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/indusagi/induscode/tool"
)

// FuzzEditMatch drives the edit engine with arbitrary file text and
// strings. It must never panic, and when it succeeds on plain text it must
// agree with strings.Replace; line ends and a byte-order mark must survive.
// Seeds: testdata/fuzz/FuzzEditMatch.
func FuzzEditMatch(f *testing.F) {
	f.Add(goFile, `fmt.Println("world")`, `fmt.Println("there")`, false)
	f.Add("a\r\nb\r\nc\r\n", "a\nb", "x\ny\nz", false)
	f.Add("\ufeffa b a\n", "a", "A", true)
	f.Add("x\ny\n", "", "new", false)
	f.Fuzz(func(t *testing.T, content, old, repl string, all bool) {
		got, n, err := applyEdits(content, []Edit{{OldString: old, NewString: repl, ReplaceAll: all}})
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error message")
			}
			if m, ok := closest(content, old); ok {
				if lines := len(splitLines(content)); m.line < 1 || m.line > lines || len(m.lines) == 0 {
					t.Fatalf("near match at line %d of %d with %d lines", m.line, lines, len(m.lines))
				}
			}
			return
		}
		if n < 1 || (!all && n != 1) {
			t.Fatalf("%d replacements (replace_all=%v)", n, all)
		}
		if strings.HasPrefix(content, string(bom)) && !strings.HasPrefix(got, string(bom)) {
			t.Fatal("byte-order mark lost")
		}
		noCR := !strings.ContainsRune(content+old+repl, '\r')
		plainText := noCR && !strings.Contains(content+old+repl, string(bom))
		if plainText && strings.Contains(content, old) {
			want := strings.Replace(content, old, repl, map[bool]int{true: -1, false: 1}[all])
			if got != want {
				t.Fatalf("got %q, want %q", got, want)
			}
		}
		if noCR && strings.ContainsRune(got, '\r') {
			t.Fatal("a carriage return appeared in an LF file")
		}
		pureCRLF := strings.Count(content, "\n") > 0 && strings.Count(content, "\r\n") == strings.Count(content, "\n")
		if pureCRLF && !strings.ContainsRune(old+repl, '\r') && !strings.HasPrefix(old, "\n") &&
			strings.Count(got, "\r\n") != strings.Count(got, "\n") {
			t.Fatalf("CRLF file got a bare LF: %q", got)
		}
	})
}

// FuzzResolve drives path resolution and the workspace check with
// arbitrary paths against a tree that has symlinks leading in, out, to an
// absolute path outside, in a loop and nowhere. A path write or edit
// accepts must really lie inside the workspace. Seeds:
// testdata/fuzz/FuzzResolve.
func FuzzResolve(f *testing.F) {
	for _, p := range []string{"a.txt", "@sub/x", "~/x", "../x", "out/x", "in/x", "abs", "loop/x", "dangling", "/etc/passwd", "sub/../../ws/x", ".", ""} {
		f.Add(p)
	}
	base := f.TempDir()
	ws, outside := filepath.Join(base, "ws"), filepath.Join(base, "outside")
	for _, d := range []string{filepath.Join(ws, "sub"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			f.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(outside, "secret"), []byte("s"), 0o644)
	os.Symlink("sub", filepath.Join(ws, "in"))
	os.Symlink("../outside", filepath.Join(ws, "out"))
	os.Symlink(filepath.Join(outside, "secret"), filepath.Join(ws, "abs"))
	os.Symlink("loop", filepath.Join(ws, "loop"))
	os.Symlink("nowhere", filepath.Join(ws, "dangling"))
	realWS, err := filepath.EvalSymlinks(ws)
	if err != nil {
		f.Fatal(err)
	}
	realOut, _ := filepath.EvalSymlinks(outside)

	f.Fuzz(func(t *testing.T, p string) {
		env := tool.NewEnv(ws)
		abs, err := env.Resolve(p)
		if err != nil {
			return
		}
		if !filepath.IsAbs(abs) || abs != filepath.Clean(abs) {
			t.Fatalf("Resolve(%q) = %q: not absolute and clean", p, abs)
		}
		if trimmed := strings.TrimPrefix(strings.TrimSpace(p), "@"); !strings.HasPrefix(trimmed, "~") && !filepath.IsAbs(trimmed) {
			if want := filepath.Join(ws, trimmed); abs != want {
				t.Fatalf("Resolve(%q) = %q, want %q", p, abs, want)
			}
		}
		if root, rel, err := env.WorkspaceRoot(abs); err == nil {
			if filepath.Join(root, rel) != abs || !(rel == "." || filepath.IsLocal(rel)) {
				t.Fatalf("WorkspaceRoot(%q) = %q, %q", abs, root, rel)
			}
		}
		tg, err := locate(env, p)
		if err != nil {
			return
		}
		defer tg.Close()
		if rel, err := filepath.Rel(realWS, tg.real); err != nil || !(rel == "." || filepath.IsLocal(rel)) {
			t.Fatalf("locate(%q) accepted %q, outside %q", p, tg.real, realWS)
		}
		if strings.HasPrefix(tg.real, realOut+string(filepath.Separator)) || tg.real == realOut {
			t.Fatalf("locate(%q) reaches the outside directory: %q", p, tg.real)
		}
		if filepath.Join(tg.root.Name(), tg.rel) != tg.real {
			t.Fatalf("root %q + %q is not %q", tg.root.Name(), tg.rel, tg.real)
		}
		if _, err := tg.root.Lstat(tg.rel); err != nil && !os.IsNotExist(err) && !strings.Contains(err.Error(), "not a directory") {
			t.Fatalf("os.Root refuses what locate accepted: %v", err)
		}
	})
}
