//go:build unix

package bridge

import (
	"bytes"
	"fmt"
	"os"
	"syscall"
	"testing"
	"time"
)

// stopProcess freezes a server (SIGSTOP), to make it hang.
func stopProcess(t testing.TB, p *process) {
	t.Helper()
	if err := syscall.Kill(p.pid(), syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	// kill only sends the signal: a server running on another processor
	// can still read and answer the next call before it stops. Wait for
	// the stop where the system shows process states (/proc).
	stat := fmt.Sprintf("/proc/%d/stat", p.pid())
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		b, err := os.ReadFile(stat)
		if err != nil {
			return // no /proc here: the signal is all there is
		}
		// The state follows the command name, which is in parentheses.
		if i := bytes.LastIndexByte(b, ')'); i >= 0 && i+2 < len(b) && b[i+2] == 'T' {
			return
		}
	}
	t.Fatalf("process %d did not stop within 5s of SIGSTOP", p.pid())
}

func continueProcess(t testing.TB, p *process) {
	t.Helper()
	if err := syscall.Kill(p.pid(), syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
}
