package lsp

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package when a test leaves a goroutine behind: every
// server's readers end when it is stopped.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
