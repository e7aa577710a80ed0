package atomicfile

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package when a test leaves a goroutine behind
// (the sweep test starts a process).
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
