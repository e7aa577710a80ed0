// Package walk lists the files of a directory tree the way ripgrep and fd
// do: .gitignore files (nested, with negation, honored inside a git
// repository as git does), .ignore files and .git/info/exclude are obeyed,
// hidden files are included, version-control directories, induscode's
// state folder (.indusvx) and symlinks are skipped. A Filter narrows the walk further with ripgrep-style globs, the
// file-type table (TypeNames) or a predicate.
//
// Walk visits files in parallel and in no order, for callers that collect
// and sort (find, grep's file lists). Sorted yields files one by one in
// path order, for callers that stream results in a fixed order with
// bounded memory (grep's content output).
//
// The parts: walk.go is the parallel walk and the filter; sorted.go the
// ordered one; ignore.go parses ignore patterns and rules.go stacks them
// by directory; readdir_linux.go lists a directory with getdents64 and
// keeps the kernel's entry types so that no entry needs a stat; file.go is
// the File a walk hands out, whose directory a walk with Config.ByName
// keeps open so that the file is opened or statted by name.
package walk
