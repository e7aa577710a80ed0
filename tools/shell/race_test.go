//go:build race

package shell

import "time"

// promptLag is how soon after a prompt a wait must return. The race
// detector slows every goroutine switch several times over.
const promptLag = 250 * time.Millisecond
