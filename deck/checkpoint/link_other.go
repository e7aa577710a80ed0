//go:build !linux

package checkpoint

import (
	"errors"
	"os"
)

// linkFile is Linux-only; elsewhere the store copies.
func linkFile(*os.File, string) error { return errors.ErrUnsupported }
