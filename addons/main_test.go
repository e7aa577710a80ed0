package addons

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package when a test leaves a goroutine behind (a
// dispatcher or chain that outlives its call).
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
