// Package search authors the workspace search tools grep (file contents)
// and find (file names). Both walk a directory tree in parallel with the
// same ignore rules as ripgrep and fd: .gitignore files (nested, with
// negation), .ignore files and .git/info/exclude, hidden files included and
// version-control directories skipped. Neither shells out: the speed comes
// from this package.
//
// The parts, one file each: the walker (walk.go) hands every file to a
// worker that owns a reused read buffer (read.go); ignore.go parses ignore
// patterns and rules.go stacks them by directory; literal.go extracts the
// strings every match must contain from the parsed regular expression, and
// prefilter.go finds them with bytes.Index or, for case-insensitive
// literals, a scan for the literal's rarest byte; matcher.go runs the
// regular expression only on the lines the prefilter proposes; scan.go
// walks a file's buffer chunk by chunk and collects matches and context;
// grep.go and find.go are the tools and output.go formats results.
//
// Globs use github.com/bmatcuk/doublestar/v4. Ignore patterns are parsed
// here and translated to doublestar patterns, because gitignore differs
// from a plain glob in anchoring, directory-only patterns and negation.
package search
