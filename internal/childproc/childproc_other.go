//go:build !linux

package childproc

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
)

// Elsewhere there is no parent-death signal and no /proc to scan: a ward
// only stops what its groups hold, and Reap only clears stale records.

func setDeathSignal(*exec.Cmd) {}

func start(cmd *exec.Cmd) (func(), error) {
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return func() {}, nil
}

func pidAlive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	err = p.Signal(syscall.Signal(0))
	return err == nil || !errors.Is(err, os.ErrProcessDone)
}

func startTime(int) string { return "" }

// needStart: there are no start times to record here.
const needStart = false

func killCarriers([]record) int { return 0 }

// BecomeSubreaper is Linux-only; elsewhere a process that leaves its
// group and drops its token outlives the session.
func BecomeSubreaper() error { return errors.ErrUnsupported }

func (*Ward) adopt()       {}
func (*Ward) killAdopted() {}
