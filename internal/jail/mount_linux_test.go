//go:build linux

package jail_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/indusagi/induscode/internal/childproc"
	"github.com/indusagi/induscode/internal/jail"
	"github.com/indusagi/induscode/internal/jail/jailtest"
)

// needMountTier skips where the system rules out user namespaces: the
// per-entry rules then apply, which the other tests cover. Where it
// allows them, a helper that cannot mount in them fails the test.
func needMountTier(t *testing.T) {
	t.Helper()
	needLandlock(t)
	if why := jail.MountTier(); why != nil {
		t.Skipf("no mount tier here (workspace-write keeps to per-entry rules): %v", why)
	}
	cmd, why := jail.NamespaceProbe()
	if why == nil {
		var out []byte
		out, why = cmd.CombinedOutput()
		if why != nil {
			why = &probeError{why, string(out)}
		}
	}
	if why != nil {
		t.Fatalf("user namespaces are allowed here, but the helper could not mount in one: %v", why)
	}
}

type probeError struct {
	err error
	out string
}

func (e *probeError) Error() string { return e.err.Error() + ": " + strings.TrimSpace(e.out) }

// TestMountTierAllows is what the mount tier adds over the per-entry
// rules: new, removed and renamed entries at the workspace's top, files
// moved and linked between folders, git's lock files at .git's top, and
// the dedicated helper doing it with no capability left to the command.
func TestMountTierAllows(t *testing.T) {
	needMountTier(t)
	t.Parallel()
	if h := jail.Helper(); filepath.Base(h) != jail.HelperName {
		t.Errorf("the helper is %s, want the %s that TestMain built", h, jail.HelperName)
	}
	s := jailtest.New(t)
	run := startedBy(s, jail.ForMode(jail.WorkspaceWrite, s.Workspace, t.TempDir()), true)
	out := run(t, `set -e
touch newtop && mkdir build && echo hi > build/f && sed -i s/top/TOP/ top.txt
mv build/f sub/moved && ln sub/moved sub/linked && rm newtop && touch newtop2
echo lock > .git/index.lock && mv .git/index.lock .git/index
grep CapEff /proc/self/status
echo OK`)
	if !strings.HasSuffix(strings.TrimSpace(out), "OK") {
		t.Fatalf("the mount tier refused ordinary work:\n%s", out)
	}
	if !strings.Contains(out, "CapEff:\t0000000000000000") {
		t.Errorf("the command kept capabilities of its namespace:\n%s", out)
	}
	for p, want := range map[string]string{"newtop2": "", "top.txt": "TOP\n", "sub/linked": "hi\n", ".git/index": "lock\n"} {
		if b, err := os.ReadFile(filepath.Join(s.Workspace, p)); err != nil || string(b) != want {
			t.Errorf("%s = %q, %v; want %q", p, b, err, want)
		}
	}
	if _, err := os.Stat(filepath.Join(s.Workspace, "newtop")); err == nil {
		t.Error("a top-level file the command removed is still there")
	}
}

// TestSweep: the names a writable workspace can gain whatever the rules
// (a protected path that did not exist) are moved into the quarantine
// once the command ended, each with a note; what was there stays.
func TestSweep(t *testing.T) {
	needMountTier(t)
	t.Parallel()
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "keep.txt"), []byte("keep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", "-c", `set -e
mkdir -p .git/hooks && echo x > .git/hooks/pre-commit
echo '{}' > .mcp.json
mkdir -p .claude/commands && echo '{}' > .claude/settings.local.json
mkdir -p .indus/addons/evil
echo changed > keep.txt`)
	cmd.Dir = ws
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := jail.Wrap(cmd, jail.ForMode(jail.WorkspaceWrite, ws, "")); err != nil {
		t.Fatal(err)
	}
	watch := jail.WatchCmd(cmd)
	w := childproc.NewWard("")
	defer w.Close()
	w.Prepare(cmd)
	release, err := w.Start(cmd, true)
	if err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	release()
	if err != nil {
		t.Fatalf("the command failed: %v\n%s", err, &out)
	}
	notes := watch.Sweep()
	joined := strings.Join(notes, "\n")
	for _, rel := range []string{".git", ".mcp.json", ".claude/settings.local.json", ".indus"} {
		if _, err := os.Lstat(filepath.Join(ws, rel)); err == nil {
			t.Errorf("%s is still in the workspace", rel)
		}
		if !strings.Contains(joined, "protected path "+rel+",") {
			t.Errorf("no note names %s:\n%s", rel, joined)
		}
	}
	if len(notes) != 4 {
		t.Errorf("%d notes, want 4:\n%s", len(notes), joined)
	}
	q, _ := filepath.Glob(filepath.Join(ws, jail.Quarantine, "*-.git", "hooks", "pre-commit"))
	if len(q) != 1 {
		t.Errorf("the planted hook is not in the quarantine: %v", q)
	}
	if _, err := os.Stat(filepath.Join(ws, ".claude/commands")); err != nil {
		t.Errorf("the unprotected rest of .claude was swept too: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "keep.txt")); string(b) != "changed\n" {
		t.Errorf("keep.txt = %q", b)
	}
	if again := watch.Sweep(); again != nil {
		t.Errorf("a second sweep found more: %v", again)
	}
}
