package checkpoint

import (
	"testing"

	"go.uber.org/goleak"
)

// The diff tests run GNU patch; nothing may be left running.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
