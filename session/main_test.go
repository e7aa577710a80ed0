package session

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/indusagi/induscode/internal/jail"
	"github.com/indusagi/induscode/internal/jail/jailtest"
)

// TestMain serves as the sandbox's helper for sandboxed sessions, then
// fails the package when a test leaves a goroutine behind.
func TestMain(m *testing.M) {
	jail.Main()
	jailtest.Main() // the escape suite's probe program
	goleak.VerifyTestMain(m)
}
