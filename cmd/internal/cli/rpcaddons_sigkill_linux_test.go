package cli_test

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/indusagi/induscode/internal/testpeer"
)

// sigkillAddon starts "sleep ARG" in its own process group, answers
// initialize with one observer, and stays after its stdin ends. It writes
// nothing (an addon's process runs within its grants, here none); the
// test finds it by its command line.
const sigkillAddon = `import json, subprocess, sys, os, time
subprocess.Popen(["sleep", sys.argv[1]])
for line in sys.stdin:
    m = json.loads(line)
    if "id" not in m:
        continue
    r = {}
    if m["method"] == "initialize":
        r = {"protocolVersion": "1", "handlers": [{"id": "o", "event": "tool:after", "kind": "observe"}]}
    print(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": r}), flush=True)
time.sleep(3600)  # outlive the end of stdin: only the parent-death signal ends it
`

// A process addon dies with indusr killed by SIGKILL (parent-death
// signal), and what it started in its group is killed by the next session
// in the workspace.
func TestSIGKILLedSessionLeavesNoAddonProcessBehind(t *testing.T) {
	testpeer.Command(t, "python3", "install python3")
	t.Parallel()
	dir := t.TempDir()
	tag := "905." + fmt.Sprint(time.Now().UnixNano()%1e6)
	addon := filepath.Join(dir, ".indus", "addons", "sleepy")
	if err := os.MkdirAll(addon, 0o755); err != nil {
		t.Fatal(err)
	}
	manifest := fmt.Sprintf("id = \"sleepy\"\n[process]\ncommand = [\"python3\", \"addon.py\", %q]\nenv = [\"PATH\"]\n", tag)
	for name, body := range map[string]string{"manifest.toml": manifest, "addon.py": sigkillAddon} {
		if err := os.WriteFile(filepath.Join(addon, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("indusr", "-C", dir, "call", "--batch")
	cmd.Env = append(os.Environ(), "INDUSR_TRUST_HOOKS=1") // the user approved the addon
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		waitGone(tag, 0)
	})
	io.WriteString(stdin, `{"tool":"ls","input":{}}`+"\n")
	var pid int
	for deadline := time.Now().Add(20 * time.Second); pid == 0 || len(sleepers(tag)) == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the addon never started")
		}
		pid = addonProcess(tag)
	}
	cmd.Process.Kill() // mid-session: stdin is still open
	cmd.Wait()
	for deadline := time.Now().Add(3 * time.Second); running(pid); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the addon process %d outlived indusr", pid)
		}
	}
	if out, err := exec.Command("indusr", "-C", dir, "--no-addons", "call", "ls").CombinedOutput(); err != nil {
		t.Fatalf("the next session: %v\n%s", err, out)
	}
	if left := waitGone(tag, 3*time.Second); left != nil {
		t.Errorf("the addon's child sleep %s (pid %v) outlived the next session start", tag, left)
	}
}

// addonProcess is the pid of the addon's python process (its command line
// ends in addon.py and tag), 0 when there is none.
func addonProcess(tag string) int {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && strings.HasSuffix(string(b), "addon.py\x00"+tag+"\x00") && running(pid) {
			return pid
		}
	}
	return 0
}

// running reports whether pid is a live process (not a zombie).
func running(pid int) bool {
	st, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	s := string(st)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}
