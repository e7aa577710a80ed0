package search

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package when a test leaves a goroutine behind
// (grep streams results from a pool of goroutines).
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
