package linediff

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package when a test leaves a goroutine behind
// (the diffs are checked by running patch).
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
