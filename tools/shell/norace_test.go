//go:build !race

package shell

import "time"

// promptLag is how soon after a prompt a wait must return.
const promptLag = 50 * time.Millisecond
