package searchindex

import (
	"time"

	"github.com/indusagi/induscode/internal/searchindex/build"
	"github.com/indusagi/induscode/internal/searchindex/indexfile"
)

// SetRacyWindow shortens the racy window for a test; the returned
// function restores it.
func SetRacyWindow(d time.Duration) (restore func()) { return indexfile.SetRacyWindow(d) }

// RacyWindow is the window in force.
func RacyWindow() time.Duration { return indexfile.RacyWindow() }

// SetSpillBudget makes builds spill their posting lists beyond n bytes;
// the returned function restores the budget.
func SetSpillBudget(n int64) (restore func()) { return build.SetSpillBudget(n) }

// ListStats is how many files List has stat-ed.
func (x *Index) ListStats() int64 { return x.listStats.Load() }

// SetBatchPairs makes a build's workers hand over their files every n
// trigram-file pairs; the returned function restores the size.
func SetBatchPairs(n int) (restore func()) { return build.SetBatchPairs(n) }

// ForgeHeader returns the header of an index file, its checksum right,
// claiming the counts and lengths given (no watched paths).
func ForgeHeader(nfiles, ntris, nnames uint32, metaLen, postLen uint64) []byte {
	return indexfile.Header{Flags: indexfile.FlagComplete, NFiles: nfiles, NTris: ntris, NNames: nnames,
		MetaLen: metaLen, PostLen: postLen}.Encode()
}

// SetTrustFor sets how long a watch's silence vouches for a file after
// a check of every stamp; the returned function restores it.
func SetTrustFor(d time.Duration) (restore func()) {
	old := trustFor
	trustFor = d
	return func() { trustFor = old }
}

// SetClock makes the keeper read the time from now; the returned
// function restores the clock.
func SetClock(now func() time.Time) (restore func()) {
	old := clock
	clock = now
	return func() { clock = old }
}
