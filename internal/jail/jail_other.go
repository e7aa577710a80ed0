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
	Mount   error
}

// Probe reports that this system has no Landlock.
func Probe() Report {
	return Report{Err: errors.New("Landlock is Linux's; this system has none"), Mount: MountTier()}
}

func runHelper(string) {
	fmt.Fprintln(os.Stderr, "indusr sandbox: this system cannot confine commands; the command did not run")
	os.Exit(126)
}

// Unwrap leaves cmd alone: Wrap never prepares one here.
func Unwrap(*exec.Cmd) (func() error, bool) { return nil, false }

// MountTier says the mount tier is Linux's.
func MountTier() error { return errors.New("the mount tier needs Linux user namespaces") }

// Helper is "": this system confines nothing.
func Helper() string { return "" }

// NamespaceProbe starts nothing: the mount tier is Linux's.
func NamespaceProbe() (*exec.Cmd, error) { return nil, MountTier() }

func closeInherited(int) {}

func newSession(*exec.Cmd) {}

func openDirAt(*os.File, string) *os.File { return nil }
