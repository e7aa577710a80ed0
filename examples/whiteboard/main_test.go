package whiteboard_test

import (
	"testing"

	"go.uber.org/goleak"
)

// Every goroutine the examples start (the MCP server and client of
// Example_serve, concurrent calls) must be gone when the tests end.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
