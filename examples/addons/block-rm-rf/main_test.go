package blockrmrf

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package when a test leaves a goroutine behind
// (the tests run the hook script as a process).
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
