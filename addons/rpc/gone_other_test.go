//go:build !unix

package rpc

import "os"

// processGone reports whether no process has pid.
func processGone(pid int) bool {
	_, err := os.FindProcess(pid)
	return err != nil
}
