package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/indusagi/induscode/workspace"
)

// A session's start removes the temp files that an indusr killed mid-write
// left at the workspace root and under the checkpoint folder.
func TestSessionStartSweepsLeftoverTempFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skipf("cannot run true to get a dead process id: %v", err)
	}
	old := time.Now().Add(-2 * time.Hour)
	var planted []string
	for _, d := range []string{dir, workspace.At(dir).Checkpoints()} {
		if err := workspace.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(d, fmt.Sprintf(".tmp-%d-0123456789ab", cmd.Process.Pid))
		os.WriteFile(p, []byte("half a file"), 0o600)
		os.Chtimes(p, old, old)
		planted = append(planted, p)
	}
	var stdout, stderr bytes.Buffer
	if c := run(context.Background(), Program{}, []string{"-C", dir, "call", "ls"}, strings.NewReader(""), &stdout, &stderr); c != ExitOK {
		t.Fatalf("exit %d: %s", c, stderr.String())
	}
	for _, p := range planted {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s survived the session start", p)
		}
	}
	if strings.Contains(stdout.String(), ".tmp-") {
		t.Errorf("ls still lists the leftover:\n%s", stdout.String())
	}
}
