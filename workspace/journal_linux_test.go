package workspace

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/indusagi/induscode/internal/atomicfile"
	"github.com/indusagi/induscode/internal/testpeer"
)

// writerEnv, set, makes the test binary the writer of the test below:
// atomic writes into the workspace it names, one after another, until
// it is killed.
const writerEnv = "INDUSCODE_TEST_JOURNAL_WRITER"

// A writer killed mid-write leaves its temp file in the workspace; the
// next session start removes it, so git status shows nothing of it.
func TestKilledWritersTempFileIsSwept(t *testing.T) {
	if ws := os.Getenv(writerEnv); ws != "" {
		root, err := os.OpenRoot(ws)
		if err != nil {
			os.Exit(3)
		}
		data := make([]byte, 8<<20)
		for {
			if err := atomicfile.WriteInRoot(root, "src/big.bin", data, 0, At(ws).Journal()); err != nil {
				os.Exit(4)
			}
		}
	}
	t.Parallel()
	testpeer.Command(t, "git", "install git")
	ws := t.TempDir()
	if out, err := exec.Command("git", "-C", ws, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	status := func() string {
		out, err := exec.Command("git", "-C", ws, "status", "--porcelain", "--untracked-files=all").CombinedOutput()
		if err != nil {
			t.Fatalf("git status: %v\n%s", err, out)
		}
		return string(out)
	}
	// The kill may land between two writes, leaving nothing: try again.
	for try := 0; !strings.Contains(status(), atomicfile.TempPrefix); try++ {
		if try == 5 {
			t.Fatal("the writer was never killed mid-write")
		}
		killMidWrite(t, ws)
	}
	if n := At(ws).SweepTemps(); n != 1 {
		t.Errorf("SweepTemps removed %d temp files, want 1", n)
	}
	if s := status(); strings.Contains(s, atomicfile.TempPrefix) {
		t.Errorf("a temp file is left in git status:\n%s", s)
	}
	if entries, _ := os.ReadDir(At(ws).Temp()); len(entries) != 0 {
		t.Errorf("notes are left: %v", entries)
	}
}

// killMidWrite starts the writer on ws and SIGKILLs it as soon as a temp
// file of its exists.
func killMidWrite(t *testing.T, ws string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestKilledWritersTempFileIsSwept$")
	cmd.Env = append(os.Environ(), writerEnv+"="+ws)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer cmd.Process.Kill()
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); {
		entries, _ := os.ReadDir(filepath.Join(ws, "src"))
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), atomicfile.TempPrefix) {
				cmd.Process.Signal(syscall.SIGKILL)
				return
			}
		}
	}
	t.Fatal("the writer never had a temp file")
}
