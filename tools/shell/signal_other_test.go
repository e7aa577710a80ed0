//go:build !unix

package shell

import "os"

// signalable reports whether a process has pid.
func signalable(pid int) bool {
	_, err := os.FindProcess(pid)
	return err == nil
}
