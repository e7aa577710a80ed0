package searchindex

import (
	"os"
	"path/filepath"
	"testing"
)

// TestStamperFollowsNoLink: a folder of the table replaced by a link
// (to a copy whose files would stamp the same) is not looked through, and
// a stamper moving between folders stamps each file as a stat of its
// whole path does.
func TestStamperFollowsNoLink(t *testing.T) {
	root := t.TempDir()
	for _, rel := range []string{"a/x.go", "a/b/y.go", "a/b/c/z.go", "a/d/w.go", "e.go", "real/f.go"} {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(rel), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(root, "real"), filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	st := newStamper(root)
	defer st.close()
	for _, rel := range []string{"a/b/c/z.go", "a/b/y.go", "a/x.go", "a/d/w.go", "e.go", "a/b/c/z.go", "real/f.go"} {
		want, ok := pathStamp(filepath.Join(root, rel))
		got, gok, _ := st.file(rel)
		if !ok || !gok || got != want {
			t.Errorf("%s: stamper %+v %v, stat %+v %v", rel, got, gok, want, ok)
		}
	}
	if _, ok, gone := st.file("link/f.go"); ok || gone {
		t.Errorf("the stamper followed a link to a folder (stamped %v, gone %v)", ok, gone)
	}
	if _, ok, gone := st.file("a/missing.go"); ok || !gone {
		t.Errorf("a file that is not there: stamped %v, gone %v", ok, gone)
	}
	if _, ok, gone := st.file("a/nowhere/f.go"); ok || !gone {
		t.Errorf("a file in a folder that is not there: stamped %v, gone %v", ok, gone)
	}
	if _, ok, gone := st.file("e.go/f.go"); ok || gone {
		t.Errorf("a file below a file: stamped %v, gone %v", ok, gone)
	}
	if _, ok, gone := st.file("a/x\x00.go"); ok || gone {
		t.Errorf("a name with a NUL: stamped %v, gone %v", ok, gone)
	}
	// A stamp allocates nothing: a listing takes tens of thousands.
	if n := testing.AllocsPerRun(100, func() { st.file("a/b/y.go"); st.file("a/d/w.go") }); n != 0 {
		t.Errorf("stamping allocated %.1f times a run, want 0", n)
	}
	if s, dir, ok := st.any("a/b"); !ok || !dir || s.ino == 0 {
		t.Errorf("a folder: %+v dir %v %v", s, dir, ok)
	}
}
