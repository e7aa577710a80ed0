package workspace

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package when a test leaves a goroutine behind
// (writers race the guard from goroutines and killed processes).
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
