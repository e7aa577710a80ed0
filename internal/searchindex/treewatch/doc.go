// Package treewatch watches the tree of a search index (fsnotify) so
// that a search needs no stat of the files nothing wrote to. It keeps what
// the events said: the files written to (dirty), the names created,
// removed or renamed (settled before each search by what is there now),
// the new files the walk would take, and whether the watch can still
// vouch for the tree. The index's table is read through Table; package
// searchindex's Keeper decides when the watch's silence may be trusted.
//
// The watches are set on every directory and ignore file the build
// stamped; then one listing checks every stamp as a one-shot search does,
// and from then on:
//   - a file written or touched is dirty: it is checked by its stamp
//     (and scanned when changed) until the next build;
//   - an entry created, removed or renamed is looked at again before the
//     next search: a file of the table that is a file again (replaced by
//     a rename, as the deck's own writes and most editors do) is dirty;
//     a name that came and went (their temporary files) changes nothing;
//   - a new file the walk would take is searched by every search until
//     the next build, and one its ignore rules leave out counts for
//     nothing;
//   - a file of the table removed drops out (its stamp finds it gone);
//   - a new folder the walk would enter is watched, then listed: its
//     files are searched as created ones;
//   - anything else that changes the tree's shape (a folder of the table
//     gone, a new folder too large to list), an ignore file
//     changed, or an event lost (queue overflow, a watcher error) breaks
//     the watch: searches walk, as they do without one, until the next
//     build.
//
// Before each listing a probe file is created in the index folder and
// its event awaited: the kernel queues events in order, so every change
// made before the search began has been seen by then.
//
// The watch does not see every change. A write through a shared mapping
// (mmap) makes no event, nor does a write through another name of the
// file (a hard link outside the workspace, or in a folder the walk
// ignores and nothing watches). So silence vouches for a file only for a
// while after a listing checked every stamp (Age); a search later than
// that checks every stamp again, as a one-shot search does, and searches
// in between start that check in the background (searchindex's Keeper
// decides). Meanwhile the files the watch cannot speak for are
// stamped by every search: those with other names (found by the last
// full check), those written to, and the candidates, which are searched
// anyway.
package treewatch
