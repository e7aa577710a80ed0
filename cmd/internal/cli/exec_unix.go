//go:build unix

package cli

import (
	"fmt"
	"os"
	"syscall"
)

// replaceWith execs path with args: the same process, streams and
// signals, and the program's exit status becomes indusr's.
func replaceWith(path string, args []string) error {
	err := syscall.Exec(path, append([]string{path}, args...), os.Environ())
	return &failure{fmt.Errorf("running the agent %s: %w", path, err)}
}
