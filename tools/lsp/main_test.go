package lsp

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

// TestMain runs the test binary as a stand-in language server when asked
// (see standIn), and otherwise fails the package when a test leaves a
// goroutine behind: every server's readers end when it is stopped.
func TestMain(m *testing.M) {
	if len(os.Args) == 3 && os.Args[1] == standInArg {
		os.Exit(standIn(os.Args[2]))
	}
	goleak.VerifyTestMain(m)
}
