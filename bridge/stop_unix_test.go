//go:build unix

package bridge

import (
	"syscall"
	"testing"
)

// stopProcess freezes a server (SIGSTOP), to make it hang.
func stopProcess(t testing.TB, p *process) {
	t.Helper()
	if err := syscall.Kill(p.pid(), syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
}

func continueProcess(t testing.TB, p *process) {
	t.Helper()
	if err := syscall.Kill(p.pid(), syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
}
