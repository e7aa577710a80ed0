package agents

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package when a test leaves a goroutine behind (the
// crew runs teammates on goroutines and starts processes).
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
