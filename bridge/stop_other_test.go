//go:build !unix

package bridge

import "testing"

func stopProcess(t testing.TB, _ *process) {
	t.Skip("freezing a process (SIGSTOP) needs a Unix system")
}

func continueProcess(testing.TB, *process) {}
