// Package searchindex is grep's n-gram index: an accelerator that lets a
// search skip the files that cannot hold a match, and never changes what
// grep answers.
//
// One index file under .indusvx/index/ maps each trigram (three bytes)
// present in the workspace's searchable files to the files holding it
// (package indexfile). Trigrams over raw bytes serve every query: a
// case-insensitive pattern, a class or an alternation becomes an OR of the
// byte strings it allows (package trigram), so there is no separate folded
// index.
// A build (package build) walks the tree with grep's own rules, reads
// each file once and writes the file atomically, its memory bounded. The
// deck's own writes and edits reach the index in the same call
// (fresh.go): the changed file is read again and its trigrams kept in
// memory until the next build.
//
// The build also stamps every directory it entered and every ignore file
// it read; while the ignore files are unchanged, List hands grep
// the files to open from the table instead of a walk (list.go), after one
// pass that stamps every file and watched path relative to its open
// folder (indexfile.Stamper). A folder whose entries changed is read again:
// its new files are searched, its removed ones dropped, and a new folder
// is read as the walk would read it; only a new rule of the indexed tree
// or a new repository sends grep back to walking. A Keeper
// (serve) also watches the tree (package treewatch), so that only the
// files written to since need a stat; since a write through a mapping or another name
// of a file makes no event, that silence vouches only for a while after
// each check of every stamp.
//
// A file is skipped only when the index proves it holds no match (index.go):
// it is in the table, its size, modification and change times, inode and
// device are those recorded (a copy or a clone of the index matches no
// file), it was not changed too close to the build to tell, and it lacks a
// trigram the pattern needs. Everything else is scanned, so results,
// order, counts, context and limits are the scan's. A file that fails a
// check (header, version, lengths, checksums) is not used at all; the
// lookup blocks and posting lists a query reads are checked as it reads
// them, and one that fails makes the whole file refused from then on.
package searchindex
