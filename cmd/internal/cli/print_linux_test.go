//go:build linux

package cli_test

import (
	"bytes"
	"errors"
	"fmt"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/indusagi/induscode/internal/fakemodel"
)

// Ctrl-C cancels the turn, kills what its tools started, writes the
// transcript and exits 130.
func TestInterruptExits130AndLeavesNoProcess(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tag := fmt.Sprint(time.Now().UnixNano()%1e6 + 7e6)
	srv := fakemodel.Start(t, fakemodel.Call("bash", fmt.Sprintf(`{"command":"sleep %s"}`, tag)), fakemodel.Say("never"))
	cmd := indusrP(t, dir, srv, "-p", "sleep", "--permission-mode", "bypassPermissions")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(60 * time.Second); len(sleepers(tag)) == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("the tool's process never started")
		}
	}
	cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Errorf("exit %v, want 130\n%s", err, stderr.String())
	}
	if left := waitGone(tag, 5*time.Second); left != nil {
		t.Errorf("sleep %s (pid %v) outlived the interrupted run", tag, left)
	}
	infos := listTranscripts(t, dir, srv)
	if len(infos) != 1 || infos[0].Messages < 2 || infos[0].Damaged != "" {
		t.Errorf("transcript after the interrupt: %+v", infos)
	}
}
