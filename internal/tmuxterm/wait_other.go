//go:build !unix

package tmuxterm

import "time"

// waitGone has no way to ask where tmux does not run.
func waitGone(int, time.Duration) {}
