package indexfile

import (
	"os"
	"path/filepath"
	"testing"
	"time"
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
	for _, raw := range []bool{true, false} {
		t.Run(map[bool]string{true: "raw", false: "ordinary"}[raw], func(t *testing.T) {
			st := NewStamper(root)
			defer st.Close()
			if !raw {
				st.slow = rawSlowCalls
			}
			checkStamper(t, root, st)
		})
	}
}

// checkStamper checks st's stamps of the tree TestStamperFollowsNoLink
// makes under root.
func checkStamper(t *testing.T, root string, st *Stamper) {
	for _, rel := range []string{"a/b/c/z.go", "a/b/y.go", "a/x.go", "a/d/w.go", "e.go", "a/b/c/z.go", "real/f.go"} {
		want, ok := PathStamp(filepath.Join(root, rel))
		got, gok, _ := st.File(rel)
		if !ok || !gok || got != want {
			t.Errorf("%s: stamper %+v %v, stat %+v %v", rel, got, gok, want, ok)
		}
	}
	if _, ok, gone := st.File("link/f.go"); ok || gone {
		t.Errorf("the stamper followed a link to a folder (stamped %v, gone %v)", ok, gone)
	}
	if _, ok, gone := st.File("a/missing.go"); ok || !gone {
		t.Errorf("a file that is not there: stamped %v, gone %v", ok, gone)
	}
	if _, ok, gone := st.File("a/nowhere/f.go"); ok || !gone {
		t.Errorf("a file in a folder that is not there: stamped %v, gone %v", ok, gone)
	}
	if _, ok, gone := st.File("e.go/f.go"); ok || gone {
		t.Errorf("a file below a file: stamped %v, gone %v", ok, gone)
	}
	if _, ok, gone := st.File("a/x\x00.go"); ok || gone {
		t.Errorf("a name with a NUL: stamped %v, gone %v", ok, gone)
	}
	// A stamp allocates nothing: a listing takes tens of thousands.
	if n := testing.AllocsPerRun(100, func() { st.File("a/b/y.go"); st.File("a/d/w.go") }); n != 0 {
		t.Errorf("stamping allocated %.1f times a run, want 0", n)
	}
	if s, dir, ok := st.Any("a/b"); !ok || !dir || s.Ino == 0 {
		t.Errorf("a folder: %+v dir %v %v", s, dir, ok)
	}
}

// A stamper makes raw system calls while lookups are fast, and ordinary
// ones once several were slow (as when they wait for the disk); its
// stamps are the same either way.
func TestStamperLeavesRawCallsWhenLookupsAreSlow(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "f.go"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	want, _ := PathStamp(filepath.Join(root, "f.go"))
	st := NewStamper(root)
	defer st.Close()
	defer func(was time.Duration) { rawLimit = was }(rawLimit)
	rawLimit = time.Hour // no lookup is slow, however loaded the machine
	for range 3 * rawSlowCalls {
		if got, ok, _ := st.File("f.go"); !ok || got != want {
			t.Fatalf("stamped %+v %v, want %+v", got, ok, want)
		}
	}
	if st.slow >= rawSlowCalls {
		t.Fatalf("fast lookups turned raw calls off (%d slow)", st.slow)
	}
	rawLimit = -1 // every lookup is slow
	for i := range 3 * rawSlowCalls {
		if got, ok, _ := st.File("f.go"); !ok || got != want {
			t.Fatalf("stamped %+v %v, want %+v", got, ok, want)
		}
		if off := st.slow >= rawSlowCalls; off != (i+1 >= rawSlowCalls) {
			t.Fatalf("after %d slow lookups raw calls are off: %v", i+1, off)
		}
	}
}
