// Package search authors the workspace search tools grep (file contents)
// and find (file names). Both walk a directory tree in parallel with the
// ignore rules of ripgrep and fd: .gitignore files (nested, with negation,
// honored inside a git repository as git and ripgrep do), .ignore files and
// .git/info/exclude; hidden files are included and version-control
// directories skipped. Neither shells out: the speed is this package's.
//
// The parts, one file each: walk.go hands every file to a worker that owns
// a reused read buffer (file_unix.go opens it without os.File's poller
// registration; readdir_linux.go lists directories with getdents64);
// ignore.go parses ignore patterns and rules.go stacks them by directory;
// literal.go extracts from the parsed regular expression the strings every
// match must contain, and prefilter.go finds them with a vectorised scan
// for their rarest byte (both cases of it for a case-insensitive literal);
// seq.go checks a fixed byte-class prefix at each candidate; matcher.go
// runs the full pattern only on the lines the prefilter proposes, and
// dfa.go is a lazy DFA for patterns with no literal at all; scan.go walks a
// file chunk by chunk and collects matches with context; grep.go, find.go,
// types.go and output.go are the tools, their type table and their output.
//
// Globs use github.com/bmatcuk/doublestar/v4: ignore patterns are parsed
// here and translated to it, because gitignore differs from a plain glob in
// anchoring, directory-only patterns and negation. The DFA is written here
// because Go's regexp has none and no allowed dependency provides one.
package search
