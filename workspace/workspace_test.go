package workspace

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/indusagi/induscode/internal/testpeer"
)

func TestMkdirAllIgnoresTheStateFolder(t *testing.T) {
	root := t.TempDir()
	l := At(root)
	if err := MkdirAll(l.Checkpoints(), 0o700); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(l.Checkpoints()); err != nil || !fi.IsDir() {
		t.Fatalf("checkpoints folder not created: %v", err)
	}
	b, err := os.ReadFile(filepath.Join(l.State(), ".gitignore"))
	if err != nil {
		t.Fatalf("no .gitignore in the new state folder: %v", err)
	}
	if !strings.Contains(string(b), "\n*\n") {
		t.Errorf(".gitignore does not ignore everything:\n%s", b)
	}
}

// git status of a workspace with state shows nothing of the state folder.
func TestStateNeverShowsInGit(t *testing.T) {
	testpeer.Command(t, "git", "install git")
	root := t.TempDir()
	if out, err := exec.Command("git", "-C", root, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	l := At(root)
	for _, d := range []string{l.Sessions(), l.Background(), l.Plans()} {
		if err := MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "x"), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, err := exec.Command("git", "-C", root, "status", "--porcelain", "--untracked-files=all").CombinedOutput()
	if err != nil {
		t.Fatalf("git status: %v\n%s", err, out)
	}
	if len(out) != 0 {
		t.Errorf("git status shows state files:\n%s", out)
	}
}

// A state folder the user already has keeps its contents: no .gitignore is
// forced into it (they may have removed it on purpose).
func TestExistingStateFolderIsLeftAlone(t *testing.T) {
	l := At(t.TempDir())
	if err := os.Mkdir(l.State(), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := MkdirAll(l.Plans(), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(l.State(), ".gitignore")); err == nil {
		t.Error("a .gitignore was written into a state folder that already existed")
	}
}

func TestEveryPathIsUnderTheStateFolder(t *testing.T) {
	l := At("/w")
	for name, p := range map[string]string{
		"MCPConfig": l.MCPConfig(), "Ledger": l.Ledger(), "ToolCache": l.ToolCache(),
		"MCPLogs": l.MCPLogs(), "Checkpoints": l.Checkpoints(), "Sessions": l.Sessions(),
		"Session": l.Session("s"), "Background": l.Background(), "Logs": l.Logs(),
		"Plans": l.Plans(), "Memory": l.Memory(), "Downloads": l.Downloads(),
		"Locks": l.Locks(), "Temp": l.Temp(), "AddonLogs": l.AddonLogs(), "AddonState": l.AddonState(),
		"History": l.History(),
	} {
		if !strings.HasPrefix(p, "/w/.indusvx/") {
			t.Errorf("%s = %s, not under /w/.indusvx/", name, p)
		}
	}
}

func TestMigrateLegacyBackground(t *testing.T) {
	l := At(t.TempDir())
	if err := l.MigrateLegacy(); err != nil {
		t.Fatalf("no legacy folder: %v", err)
	}
	if err := os.Mkdir(l.LegacyBackground(), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(l.LegacyBackground(), "p1.stdout.log"), []byte("old output\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := l.MigrateLegacy(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(l.Background(), "p1.stdout.log"))
	if err != nil || string(b) != "old output\n" {
		t.Fatalf("log not moved: %q %v", b, err)
	}
	if _, err := os.Stat(l.LegacyBackground()); !os.IsNotExist(err) {
		t.Errorf("legacy folder still there: %v", err)
	}
	if _, err := os.Stat(filepath.Join(l.State(), ".gitignore")); err != nil {
		t.Errorf("migration created the state folder without its .gitignore: %v", err)
	}
}
