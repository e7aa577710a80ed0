//go:build !unix

package cards

import "os"

// processAlive reports whether a process has pid.
func processAlive(pid int) bool {
	_, err := os.FindProcess(pid)
	return err == nil
}
