//go:build !unix

package shell

import (
	"os"
)

// Without process groups the best this platform offers is to stop the
// process itself; children it started may survive.
var (
	sigTerm os.Signal = os.Kill
	sigKill os.Signal = os.Kill
	sigInt  os.Signal = os.Interrupt
)

func describeExit(ps *os.ProcessState) (int, string) {
	if ps == nil {
		return -1, ""
	}
	return ps.ExitCode(), ""
}
