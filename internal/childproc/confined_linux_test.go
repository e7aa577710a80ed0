package childproc

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/indusagi/induscode/internal/jail"
)

func needLandlock(t *testing.T) {
	t.Helper()
	if r := jail.Probe(); r.ABI < 1 {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the sandbox tests need Landlock: %v", r.Err)
		}
		t.Skipf("no Landlock here: %v", r.Err)
	}
}

// confined is bash -c script in a new workspace, wrapped with a grant of
// its folder sub (workspace-write starts through a helper in namespaces
// of its own where it can; a grant is confined on the starting thread),
// prepared by w.
func confined(t *testing.T, w *Ward, script string, args ...string) (*exec.Cmd, string) {
	t.Helper()
	ws := t.TempDir()
	if err := os.Mkdir(filepath.Join(ws, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", append([]string{"-c", script, "bash"}, args...)...)
	cmd.Dir = ws
	p := &jail.Policy{Mode: jail.ReadOnly, Workspace: ws, ReadAll: true, Write: []string{filepath.Join(ws, "sub")}}
	if err := jail.Wrap(cmd, p); err != nil {
		t.Fatal(err)
	}
	w.Prepare(cmd)
	return cmd, ws
}

// A ward starts a sandboxed command confined: where user namespaces are
// allowed through the helper, in namespaces of its own (a PID namespace
// for the command); elsewhere itself, from a confined thread, so the
// program that runs is the command's own (no helper process).
func TestWardStartsConfined(t *testing.T) {
	needLandlock(t)
	outside := t.TempDir()
	w := NewWard("")
	defer w.Close()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatal(err)
	}
	cmd, ws := confined(t, w, `touch sub/in; touch "$1/out"; grep NoNewPrivs /proc/self/status`, outside)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	release, err := w.Start(cmd, true)
	if err != nil {
		t.Fatal(err)
	}
	withPolicy := slices.ContainsFunc(cmd.Env, func(kv string) bool { return strings.HasPrefix(kv, jail.EnvVar+"=") })
	switch {
	case jail.MountTier() == nil && (cmd.Path != jail.Helper() || cmd.SysProcAttr.Cloneflags&syscall.CLONE_NEWUSER == 0):
		t.Errorf("the ward started %s (clone flags %#x); want the helper in namespaces of its own", cmd.Path, cmd.SysProcAttr.Cloneflags)
	case jail.MountTier() != nil && (cmd.Path != bash || withPolicy):
		t.Errorf("the ward started %s (env %q); want bash itself, without the helper's policy", cmd.Path, cmd.Env)
	}
	_ = cmd.Wait()
	release()
	if _, err := os.Stat(filepath.Join(ws, "sub/in")); err != nil {
		t.Errorf("the write inside the workspace did not happen: %v; output %q", err, out.String())
	}
	if _, err := os.Stat(filepath.Join(outside, "out")); err == nil {
		t.Fatalf("a confined command wrote outside its workspace; output %q", out.String())
	}
	if !strings.Contains(out.String(), "Permission denied") || !strings.Contains(out.String(), "NoNewPrivs:\t1") {
		t.Errorf("output %q; want the refusal and no_new_privs", out.String())
	}
}

// The thread that started a confined child lives as long as the child:
// its parent-death signal is tied to that thread, so a thread that ended
// early (here: when another confined child is done) would kill it.
func TestConfinedChildOutlivesItsStart(t *testing.T) {
	needLandlock(t)
	w := NewWard("")
	defer w.Close()
	long, _ := confined(t, w, `read line; echo "got $line"`)
	in, err := long.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	long.Stdout = &out
	release, err := w.Start(long, true)
	if err != nil {
		t.Fatal(err)
	}
	short, _ := confined(t, w, "true")
	releaseShort, err := w.Start(short, true)
	if err != nil {
		t.Fatal(err)
	}
	if err := short.Wait(); err != nil {
		t.Fatal(err)
	}
	releaseShort()
	_, _ = in.Write([]byte("it\n"))
	in.Close()
	err = long.Wait()
	release()
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.Sys().(syscall.WaitStatus).Signaled() {
		t.Fatalf("the confined child was killed by %v before it finished", exit.Sys().(syscall.WaitStatus).Signal())
	}
	if err != nil || out.String() != "got it\n" {
		t.Fatalf("err %v, output %q", err, out.String())
	}
}
