package files

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// A file whose name is not UTF-8 (or holds a newline) is listed with Go
// escapes, so the listing stays valid UTF-8 and no two names look alike.
func TestLsNamesNonUTF8FilesPlainly(t *testing.T) {
	t.Parallel()
	env, dir := newEnv(t)
	cases := []struct{ name, shown string }{
		{"bad\xffname", `"bad\xffname"`},
		{"bad\xfename", `"bad\xfename"`},
		{"two\nlines", `"two\nlines"`},
		{"plain-é.txt", "plain-é.txt"},
	}
	for _, c := range cases {
		if err := os.WriteFile(filepath.Join(dir, c.name), nil, 0o644); err != nil {
			t.Skipf("this file system refuses the name %q: %v", c.name, err)
		}
	}
	if err := os.Symlink("bad\xffname", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	out := mustOK(t, call(t, LsTool(), env, map[string]any{"path": "."}))
	if !utf8.ValidString(out) {
		t.Errorf("the listing is not valid UTF-8: %q", out)
	}
	lines := strings.Split(out, "\n")
	for _, c := range cases {
		found := false
		for _, l := range lines {
			if strings.TrimSpace(l) == c.shown || strings.HasSuffix(l, " "+c.shown) {
				found = true
			}
		}
		if !found {
			t.Errorf("%q is not listed as %s:\n%s", c.name, c.shown, out)
		}
	}
	if !strings.Contains(out, `link -> "bad\xffname"`) {
		t.Errorf("the symlink target is not named plainly:\n%s", out)
	}
}

// write and edit refuse content or paths with raw bytes that are not
// UTF-8, and change nothing: before, the bytes became U+FFFD on disk.
func TestWriteRefusesInvalidUTF8(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, input, field string }{
		{"content", "{\"path\":\"a.txt\",\"content\":\"caf\xe9\"}", `"content"`},
		{"path", "{\"path\":\"\xff.txt\",\"content\":\"x\"}", `"path"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			env, dir := newEnv(t)
			r := WriteTool().Run(t.Context(), []byte(c.input), env)
			mustFail(t, r, c.field, "not valid UTF-8", "cannot carry raw invalid bytes")
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Errorf("something was written: %v", entries)
			}
		})
	}
}
