package session

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/indusagi/induscode/internal/jail"
)

// TestMain serves as the sandbox's helper for sandboxed sessions, then
// fails the package when a test leaves a goroutine behind.
func TestMain(m *testing.M) {
	jail.Main()
	goleak.VerifyTestMain(m)
}
