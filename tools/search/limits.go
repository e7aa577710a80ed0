package search

import "time"

// Limits of the search tools. Each is a named constant so the notices that
// mention them and the tests that pin them agree.
const (
	// DefaultHeadLimit is how many entries (files, count lines or output
	// lines) grep returns when head_limit is absent: enough to be useful
	// in one answer without flooding a model's context.
	DefaultHeadLimit = 250

	// MaxLineChars is where grep clips a shown line. Minified files have
	// lines of megabytes; 500 characters keeps a match readable.
	MaxLineChars = 500

	// DefaultBudget is how long grep and find may run before they stop and
	// return what they found, with a notice. 20 s is long enough for a
	// million-file tree on a warm cache and short enough to keep an agent
	// responsive.
	DefaultBudget = 20 * time.Second

	// MaxContextLines bounds before/after/context. More than this is a
	// file read, not a search; the read tool does it better.
	MaxContextLines = 100

	// DefaultFindLimit and MaxFindLimit bound find's result list. Newest
	// first, 100 names is what a model can use; 1000 is the ceiling
	// because the output of more is itself too large to read.
	DefaultFindLimit = 100
	MaxFindLimit     = 1000

	// readBufferSize is each worker's reused read buffer. Most source files
	// fit in one read; larger files stream through it chunk by chunk, so
	// memory does not grow with file size.
	readBufferSize = 256 << 10

	// maxLineBuffer bounds how far a worker's buffer grows to hold one
	// line, so that a match anywhere in a line is found (ripgrep grows its
	// buffer the same way). A longer line is searched in pieces of this
	// size and counted once; a match that spans two pieces is missed, and
	// the result says so. 256 MiB is far beyond any text a person wrote
	// and bounds what one pathological file can cost.
	maxLineBuffer = 256 << 20

	// maxMultilineFile bounds the size of a file that multiline search
	// holds in memory whole (a multiline match can span any distance).
	// Larger files are skipped with a notice.
	maxMultilineFile = 64 << 20
)
