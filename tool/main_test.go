package tool_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package when a test leaves a goroutine behind
// (shared values are built from many goroutines at once).
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
