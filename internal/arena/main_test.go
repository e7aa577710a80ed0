package arena

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package when a test leaves a goroutine behind
// (keeping an index fresh runs on its own goroutine).
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
