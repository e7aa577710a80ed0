package indexfile

import "time"

const (
	// MaxFileSize is the largest file indexed. The content of larger
	// files is not indexed, so grep always scans them (and says what it
	// says about them: long lines, multiline limits).
	MaxFileSize = 16 << 20
)

// The racy rule. A file's stamp proves it unchanged only if any later
// change must move its times; a change within the file system's timestamp
// granularity of the moment it was read may not. So the build takes the
// file system's own clock at its start (the times of its new temp file, so
// a server's clock skew does not matter), and an entry whose modification
// or change time is within RacyWindow of it, or after it, is never
// trusted. File systems with nanosecond times advance them at least every
// scheduler tick (at most 10 ms); those with whole-second times (FAT has
// two seconds) get three seconds. Tests shorten it.
var racyWindow = 100 * time.Millisecond

// RacyWindow is the racy window in force.
func RacyWindow() time.Duration { return racyWindow }

// SetRacyWindow changes the racy window, for tests, and returns the
// function that restores it.
func SetRacyWindow(d time.Duration) (restore func()) {
	old := racyWindow
	racyWindow = d
	return func() { racyWindow = old }
}
