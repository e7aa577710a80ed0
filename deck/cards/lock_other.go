//go:build !unix

package cards

import (
	"os"
	"sync"
)

// Without flock, writers in one process still exclude each other.
var fileLock sync.Mutex

func lockFile(*os.File) error   { fileLock.Lock(); return nil }
func unlockFile(*os.File) error { fileLock.Unlock(); return nil }
