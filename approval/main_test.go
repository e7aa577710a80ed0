package approval

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package when a test leaves a goroutine behind
// (concurrent approvals are recorded from many goroutines).
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
