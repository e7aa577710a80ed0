package files

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Names up to the 255 bytes a file system allows can be created, edited
// and overwritten: the temp file beside the target has a short name of
// its own, not the target's name with a suffix.
func TestLongFileNames(t *testing.T) {
	t.Parallel()
	for _, n := range []int{238, 247, 255} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			t.Parallel()
			env, dir := newEnv(t)
			name := strings.Repeat("n", n-4) + ".txt"
			mustOK(t, call(t, WriteTool(), env, map[string]any{"path": name, "content": "one\n"}))
			mustOK(t, call(t, EditTool(), env, map[string]any{"path": name, "old_string": "one", "new_string": "two"}))
			mustOK(t, call(t, WriteTool(), env, map[string]any{"path": name, "content": "three\n"}))
			if got := readFile(t, filepath.Join(dir, name)); got != "three\n" {
				t.Errorf("content %q", got)
			}
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				if e.Name() != name && e.Name() != ".indusvx" {
					t.Errorf("left behind: %s", e.Name())
				}
			}
		})
	}
}
