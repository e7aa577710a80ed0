package childproc

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/indusagi/induscode/internal/jail"
)

// TestMain fails the package when a test leaves a goroutine behind. The
// test binary is also the sandbox's helper, for a confined child started
// without a ward.
func TestMain(m *testing.M) {
	jail.Main()
	goleak.VerifyTestMain(m)
}
