//go:build !linux

package jail

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
)

// Report is what the sandbox can enforce on this system.
type Report struct {
	ABI     int
	Err     error
	Seccomp bool
}

// Probe reports that this system has no Landlock.
func Probe() Report { return Report{Err: errors.New("Landlock is Linux's; this system has none")} }

func runHelper(string) {
	fmt.Fprintln(os.Stderr, "indusr sandbox: this system cannot confine commands; the command did not run")
	os.Exit(126)
}

// Unwrap leaves cmd alone: Wrap never prepares one here.
func Unwrap(*exec.Cmd) (func() error, bool) { return nil, false }
