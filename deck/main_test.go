package deck_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package when a test leaves a goroutine behind
// (a deck runs shells and background processes).
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
