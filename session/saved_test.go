package session

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzLoadSession feeds arbitrary session files to the loader: it must
// never panic, and a file it refuses must be refused with a failure that
// says how to start afresh.
func FuzzLoadSession(f *testing.F) {
	for _, seed := range []string{
		``,
		`{}`,
		`{"version":1,"reads":[],"todos":[]}`,
		`{"version":1,"reads":[{"path":"/a","size":3,"modTime":"2026-01-01T00:00:00Z","sha256":"` + string(make([]byte, 0)) + `","at":"2026-01-01T00:00:00Z"}]}`,
		`{"version":1,"reads":[{"path":"/a","sha256":"00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"}],"todos":[{"content":"x","status":"pending","activeForm":"X"}]}`,
		`{"version":2}`,
		`{"version":1,"reads":[`,
		`[1,2,3]`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data string) {
		dir := t.TempDir()
		path, err := SavedPath(dir, "fz")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := loadSaved(dir, "fz")
		if err != nil {
			var ce *CorruptError
			if !errors.As(err, &ce) || !strings.Contains(err.Error(), "delete it to start the session afresh") {
				t.Fatalf("refusal does not say how to start afresh: %v", err)
			}
			return
		}
		if got.reads == nil {
			t.Fatal("accepted a session without a read state")
		}
	})
}

func TestSessionNames(t *testing.T) {
	t.Parallel()
	for name, ok := range map[string]bool{"s1": true, "fix.bug-2_b": true, "": false, "../x": false, ".hidden": false, "a/b": false} {
		if _, err := SavedPath(t.TempDir(), name); (err == nil) != ok {
			t.Errorf("SavedPath(%q) err = %v, want ok=%v", name, err, ok)
		}
	}
}
