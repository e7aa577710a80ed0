// Package search authors the workspace search tools grep (file contents)
// and find (file names). Both walk the tree with package internal/walk
// (ripgrep's and fd's ignore rules, in parallel) and grep matches with
// package internal/linematch (literal prefilters and a lazy DFA); neither
// shells out.
//
// The parts: grep.go and find.go are the tools; scan.go reads a file
// chunk by chunk through a worker's reused buffer (file_unix.go opens it
// without os.File's poller registration) and collects matching lines with
// their context; stream.go runs grep's content mode in path order over a
// small reorder window, so that output of any size is written as it is
// found (Grep, and the CLI through tool.WithTextStream); output.go renders
// the result text; narrow.go is the hook through which an index (package
// internal/searchindex) lets grep pass over files that cannot match.
package search
