package policy

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestPolicyPermitsPath(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "ws")
	outside := filepath.Join(base, "outside")
	for _, d := range []string{filepath.Join(root, "src"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(outside, "passwd"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(root, "src", "a.go"), []byte("x"), 0o644)
	must(t, os.Symlink(outside, filepath.Join(root, "escape")))
	must(t, os.Symlink(filepath.Join(outside, "passwd"), filepath.Join(root, "pw")))
	must(t, os.Symlink("src", filepath.Join(root, "inner")))
	must(t, os.Symlink(filepath.Join(root, "src"), filepath.Join(root, "absinner")))
	must(t, os.Symlink(filepath.Join(outside, "nothing"), filepath.Join(root, "dangling")))

	confined := ConfinedTo(root)
	tests := []struct {
		name string
		p    Policy
		path string
		err  error
	}{
		{"deny all", DenyAll(), filepath.Join(root, "src"), ErrNoFS},
		{"zero value", Policy{}, root, ErrNoFS},
		{"grant without root", Policy{AllowFS: true}, root, ErrNoRoot},
		{"the root itself", confined, root, nil},
		{"file under root", confined, filepath.Join(root, "src", "a.go"), nil},
		{"relative to root", confined, "src/a.go", nil},
		{"missing file under root", confined, filepath.Join(root, "new", "file"), nil},
		{"dot-dot climbs out", confined, root + "/../outside/passwd", ErrOutsideRoot},
		{"classic escape", confined, root + "/../etc/passwd", ErrOutsideRoot},
		{"sibling with common prefix", confined, root + "x/file", ErrOutsideRoot},
		{"absolute elsewhere", confined, "/etc/passwd", ErrOutsideRoot},
		{"symlinked folder leaving root", confined, filepath.Join(root, "escape", "passwd"), ErrOutsideRoot},
		{"symlinked file leaving root", confined, filepath.Join(root, "pw"), ErrOutsideRoot},
		{"dangling symlink leaving root", confined, filepath.Join(root, "dangling"), ErrOutsideRoot},
		{"relative symlink staying inside", confined, filepath.Join(root, "inner", "a.go"), nil},
		// os.Root does not follow an absolute link even when it points
		// back inside: refused, as the file tools' root would refuse it.
		{"absolute symlink", confined, filepath.Join(root, "absinner", "a.go"), ErrOutsideRoot},
		{"invisible characters scrubbed", confined, "\u200b" + filepath.Join(root, "src") + "\u00a0", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.p.CheckPath(tt.path)
			if !errors.Is(err, tt.err) || (tt.err == nil) != (err == nil) {
				t.Errorf("CheckPath(%q) = %v, want %v", tt.path, err, tt.err)
			}
			if tt.p.PermitsPath(tt.path) != (tt.err == nil) {
				t.Errorf("PermitsPath disagrees with CheckPath")
			}
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestPolicyEnvAndTimeout(t *testing.T) {
	if DenyAll().PermitsEnv("PATH") {
		t.Error("deny-all passes PATH on")
	}
	p := Policy{Env: []string{"PATH", "LANG"}}
	if !p.PermitsEnv("LANG") || p.PermitsEnv("HOME") || p.PermitsEnv("lang") {
		t.Error("the allow-list is not applied exactly")
	}
	if (Policy{}).CallTimeout() != DefaultTimeout || (Policy{Timeout: time.Second}).CallTimeout() != time.Second {
		t.Error("CallTimeout does not default to DefaultTimeout")
	}
}

func TestScrubInvisible(t *testing.T) {
	tests := map[string]string{
		"  plain  ":               "plain",
		"a\u200bb":                "ab",
		"\ufeffbom":               "bom",
		"nb\u00a0sp":              "nbsp",
		"rtl\u202eevil":           "rtlevil",
		"emoji 🚀 stays":           "emoji 🚀 stays",
		"\u3000ideographic\u3000": "ideographic",
		"e\u0301 combining kept":  "e\u0301 combining kept",
	}
	for in, want := range tests {
		if got := ScrubInvisible(in); got != want {
			t.Errorf("ScrubInvisible(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestExpandAndResolve(t *testing.T) {
	home := "/home/u"
	tests := []struct{ raw, base, want string }{
		{"~", "/b", "/home/u"},
		{"~/x", "/b", "/home/u/x"},
		{"a/~/x", "/b", "/b/a/~/x"},
		{"~user/x", "/b", "/b/~user/x"},
		{"rel/../y", "/b", "/b/y"},
		{"/abs/./z", "/b", "/abs/z"},
		{"\u200b~/zw", "/b", "/home/u/zw"},
	}
	for _, tt := range tests {
		if got := ResolvePath(tt.raw, tt.base, home); got != tt.want {
			t.Errorf("ResolvePath(%q, %q) = %q, want %q", tt.raw, tt.base, got, tt.want)
		}
	}
	if got := ExpandPath("a~", home); got != "a~" {
		t.Errorf("ExpandPath(a~) = %q", got)
	}
}

// FuzzResolvePath: whatever the input, the result is absolute, clean and
// free of the invisible code points, and a path the policy permits lies
// under the root.
func FuzzResolvePath(f *testing.F) {
	for _, s := range []string{"a", "../../etc/passwd", "~/x", "\u200b/abs", "a/\u202e/b", "./.././x", "~", ""} {
		f.Add(s)
	}
	root := f.TempDir()
	p := ConfinedTo(root)
	f.Fuzz(func(t *testing.T, raw string) {
		if strings.IndexByte(raw, 0) >= 0 {
			return // NUL never names a file
		}
		got := ResolvePath(raw, "/base", "/home/u")
		if !filepath.IsAbs(got) || filepath.Clean(got) != got {
			t.Fatalf("ResolvePath(%q) = %q: not absolute and clean", raw, got)
		}
		for _, r := range InvisibleCodePoints() {
			if strings.ContainsRune(got, r) {
				t.Fatalf("ResolvePath(%q) = %q keeps invisible %U", raw, got, r)
			}
		}
		if utf8.ValidString(raw) && !utf8.ValidString(got) {
			t.Fatalf("ResolvePath made valid UTF-8 invalid: %q", got)
		}
		if p.PermitsPath(raw) {
			abs := ResolvePath(raw, root, "")
			if abs != root && !strings.HasPrefix(abs, root+string(filepath.Separator)) {
				t.Fatalf("permitted %q, which resolves to %q outside %q", raw, abs, root)
			}
		}
	})
}
