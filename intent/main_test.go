package intent_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package when a test leaves a goroutine behind
// (intents are dispatched from concurrent goroutines).
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
