package manifest

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package when a test leaves a goroutine behind (a
// manifest command runs through the host's exec handle).
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
