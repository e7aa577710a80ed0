package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/indusagi/induscode/deck/checkpoint"
)

// A rewind that cannot read the files it would restore is a failure (exit
// 1), not a usage error (exit 2): the node id was fine.
func TestRewindExitCodes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "a.txt")
	s := checkpoint.ForWorkspace(dir)
	if _, _, err := s.Record("n1", "write", path, checkpoint.Prior{Exists: true, Content: strings.NewReader("old\n"), Mode: 0o644}); err != nil {
		t.Fatal(err)
	}
	// The path is now a directory: reading it for the diff fails.
	if err := os.Mkdir(path, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		node string
		want int
	}{
		{"nosuch", ExitUsage},
		{"n1", ExitToolError},
	} {
		var stdout, stderr bytes.Buffer
		c := run(context.Background(), Program{}, []string{"-C", dir, "rewind", tc.node, "--dry-run"}, strings.NewReader(""), &stdout, &stderr)
		if c != tc.want {
			t.Errorf("rewind %s: exit %d, want %d; stderr: %s", tc.node, c, tc.want, stderr.String())
		}
	}
}
