// Package indexfile is the file of grep's trigram index and the stamps it
// records: the format (a header that fixes every part's length, the file
// table laid out to be used where it lies, the lookup blocks, the posting
// lists, each checked before use: format.go), the stamps that prove a
// file unchanged since it was indexed (size, times, inode, device) and
// the racy rule that says when they cannot (racy.go), and the fast
// stamping of many files below one root relative to their open folders
// (Stamper, stat_linux.go). It reads and writes bytes; deciding what a
// search may skip is package searchindex's, and building an index is
// package build's.
package indexfile
