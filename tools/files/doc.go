// Package files authors the workspace file tools: read, write, edit and ls,
// one file per tool, with the parts they share (locating a file inside the
// workspace, the read-before-edit gate, the atomic write) in guard.go.
//
// read streams: it never holds more of a file than one buffer and the lines
// it returns, so a read deep into a gigabyte file costs a pass over the disk,
// not the file's size in memory. write and edit refuse to touch a file the
// session has not read, or one that changed since (compared by SHA-256 from
// [tool.ReadState], not by modification time), and replace files atomically
// through an [os.Root] opened on the workspace root, so neither a "../" nor a
// symlink can carry a write outside the workspace. They never change a path
// git reads as code (gitguard.go), nor one the session's [ApprovedGuard]
// refuses, such as the code an approval covers (approvedguard.go), whatever
// the permission mode.
//
// The unified diff edit returns is computed here (diff.go) rather than taken
// from a library: none of the dependencies the project allows ships one, and
// the anchored algorithm needed is short.
package files

// Limits. Each bounds what one call can cost the model (context tokens) or
// the host (memory); every notice that a limit produced says how to go on.
const (
	// DefaultReadLines is how many lines read returns when the call sets no
	// limit: enough for a whole ordinary source file, small enough that a
	// log file does not flood the context.
	DefaultReadLines = 2000

	// MaxReadBytes caps the text one read returns (50 KB, about 12k
	// tokens). The cut falls between lines, never inside one.
	MaxReadBytes = 50 * 1024

	// MaxLineChars cuts longer lines (minified code, data on one line):
	// one such line could otherwise spend the whole output budget.
	MaxLineChars = 2000

	// MaxImageBytes is the largest image read returns as an image block
	// (5 MB, the largest image the major model APIs accept).
	MaxImageBytes = 5 << 20

	// DefaultListLimit is how many entries ls shows when the call sets no
	// limit; MaxListLimit is the most it will show at all, because even
	// short names cost tokens and a model rarely needs more than a page.
	DefaultListLimit = 500
	MaxListLimit     = 5000

	// MaxEditBytes is the largest file edit rewrites. edit holds the old
	// text, the new text and the diff in memory at once; 32 MiB keeps one
	// call well under a few hundred MB, and source files are far smaller.
	//
	// write refuses to replace an existing file above it too: its old
	// content would be checkpointed whole, and a file that large is data,
	// not source. Both check the size with a stat before reading or
	// hashing anything, so refusing a 5 GB file costs no more than a
	// small one.
	MaxEditBytes = 32 << 20

	// SnippetContext is how many unchanged lines edit shows around each
	// changed region, so the model sees where its change landed.
	SnippetContext = 4

	// DiffContext is the context of edit's unified diff: the three lines
	// of diff -u and git, which patch tools expect.
	DiffContext = 3

	// MaxSnippetLines and MaxDiffBytes bound edit's output when one call
	// rewrites a large part of a file; the file itself is the record.
	MaxSnippetLines = 200
	MaxDiffBytes    = 50 * 1024

	// sniffBytes is how much of a file read inspects to tell text from
	// binary: git's heuristic (a NUL byte in the first 8000 bytes).
	sniffBytes = 8000

	// readBufferSize is read's streaming buffer: large enough that the
	// per-chunk overhead vanishes next to hashing and scanning the bytes.
	readBufferSize = 256 << 10
)
