//go:build !unix

package cli

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
)

// replaceWith runs path with args as a child with indusr's streams where
// a process cannot replace itself, and ends with the child's exit status.
func replaceWith(path string, args []string) error {
	cmd := exec.Command(path, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ee):
		return &exitCode{ee.ExitCode()}
	}
	return &failure{fmt.Errorf("running the agent %s: %w", path, err)}
}
