package searchindex

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"slices"
	"strings"
	"sync"
	"unsafe"
)

// The on-disk format, one file (FileName) written atomically:
//
//	header   64 bytes: magic, version, build time, counts (files,
//	         trigrams, watched paths, bytes of names), the lengths of meta
//	         and the postings, the checksum of meta, the header's own
//	         checksum
//	meta     the file table, laid out to be used where it lies: the count
//	         of watched paths and the length of the names (uint32 each);
//	         one record (recordSize bytes) per file by id and then one per
//	         watched path (the directories and ignore files the walk read,
//	         see tree.go): where its path starts among the names and its
//	         length, size (-1 for a file whose content is not indexed),
//	         mtime, ctime, inode, device; the files' ids in path order; the
//	         names, the paths relative to the workspace, each followed by a
//	         NUL; the directory of the lookup table: per block of
//	         lookupBlock entries, its first trigram and its checksum
//	lookup   per trigram, ascending: the trigram, its list's offset,
//	         length and checksum (lookupSize bytes each)
//	postings per trigram, the ids of the files holding it, ascending,
//	         as uvarint deltas
//
// The header alone fixes the length of every part, so that a file whose
// lengths do not follow from its counts, exceed what a build writes
// (maxMetaLen, postings within 4 GiB) or do not add up to the file's size
// is refused before any of the rest is read; a posting list is never
// longer than its file count allows (maxListLen), so a query reads no more
// than that for a trigram.
//
// Everything read is checked: a bad magic, version, length or checksum
// makes the whole index unusable (grep then scans), so a corrupt, foreign
// or half-written file is never trusted. The file is mapped, not read:
// opening it checks the header and meta (its checksum, every record's
// bounds and path, the path order), decoding nothing but the order, so a
// one-shot grep pays for the pages of the table it touches, not for a
// copy of it. A query checks each lookup block and posting list it needs
// before use.
//
// Integers are little-endian; records are fixed-size so that a file's
// stamp is read from its record when it is needed.

const (
	magic      = "INDUSIDX"
	version    = 5
	headerSize = 64
	lookupSize = 16 // trigram, offset, length, checksum: four uint32
	recordSize = 48 // path offset and length (uint32 each), five 64-bit stamp fields

	// lookupBlock is how many lookup entries share one checksum: a
	// query reads and checks a block (lookupBlock*lookupSize bytes) per
	// trigram it needs.
	lookupBlock = 256

	// FileName is the index file inside the index folder.
	FileName = "grep-trigrams.idx"

	// maxMetaLen bounds the file table: a file claiming more is refused
	// from its header, and a build that would write more fails. It is
	// about ten million files of workspace, far beyond any tree the deck
	// serves (a tree of 33,000 files takes under 3 MiB), and it bounds
	// what opening an index maps and checks.
	maxMetaLen = 1 << 30

	// maxPathLen is the longest path Linux names (PATH_MAX).
	maxPathLen = 4096

	// maxTrigrams is how many distinct trigrams of bytes there are.
	maxTrigrams = 1 << 24
)

// castagnoli is the checksum table, made on first use so that a command
// that never opens the index does not pay for it at start.
var castagnoli = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

// errCorrupt wraps every reason an index file is refused.
var errCorrupt = errors.New("search index is corrupt or of another version")

func corrupt(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errCorrupt, fmt.Sprintf(format, args...))
}

// Header flags.
const (
	// flagComplete: the table lists every file the walk admitted, and
	// the watched stamps cover everything else the walk read.
	flagComplete = 1 << iota
)

// unindexed is the size recorded for a file in the table whose content
// is not indexed (too large, unreadable, over the memory budget).
const unindexed = -1

// header is the fixed start of the file.
type header struct {
	flags    uint32
	built    int64 // unix nanoseconds when the build began
	nfiles   uint32
	ntris    uint32
	metaLen  uint64
	postLen  uint64
	metaCRC  uint32
	nwatched uint32 // watched paths in the file table
	nnames   uint32 // bytes of the paths' names in the file table
}

func (h header) encode() []byte {
	b := make([]byte, headerSize)
	copy(b, magic)
	binary.LittleEndian.PutUint32(b[8:], version)
	binary.LittleEndian.PutUint32(b[12:], h.flags)
	binary.LittleEndian.PutUint64(b[16:], uint64(h.built))
	binary.LittleEndian.PutUint32(b[24:], h.nfiles)
	binary.LittleEndian.PutUint32(b[28:], h.ntris)
	binary.LittleEndian.PutUint64(b[32:], h.metaLen)
	binary.LittleEndian.PutUint64(b[40:], h.postLen)
	binary.LittleEndian.PutUint32(b[48:], h.metaCRC)
	binary.LittleEndian.PutUint32(b[52:], h.nwatched)
	binary.LittleEndian.PutUint32(b[56:], h.nnames)
	binary.LittleEndian.PutUint32(b[60:], crc32.Checksum(b[:60], castagnoli()))
	return b
}

func decodeHeader(b []byte, fileSize int64) (header, error) {
	var h header
	if len(b) < headerSize || string(b[:8]) != magic {
		return h, corrupt("no index header")
	}
	if v := binary.LittleEndian.Uint32(b[8:]); v != version {
		return h, corrupt("format version %d, want %d", v, version)
	}
	if crc32.Checksum(b[:60], castagnoli()) != binary.LittleEndian.Uint32(b[60:]) {
		return h, corrupt("header checksum mismatch")
	}
	h.flags = binary.LittleEndian.Uint32(b[12:])
	h.built = int64(binary.LittleEndian.Uint64(b[16:]))
	h.nfiles = binary.LittleEndian.Uint32(b[24:])
	h.ntris = binary.LittleEndian.Uint32(b[28:])
	h.metaLen = binary.LittleEndian.Uint64(b[32:])
	h.postLen = binary.LittleEndian.Uint64(b[40:])
	h.metaCRC = binary.LittleEndian.Uint32(b[48:])
	h.nwatched = binary.LittleEndian.Uint32(b[52:])
	h.nnames = binary.LittleEndian.Uint32(b[56:])
	// Each bound before the sum, so that no sum overflows.
	switch entries := uint64(h.nfiles) + uint64(h.nwatched); {
	case uint64(h.ntris) > maxTrigrams:
		return h, corrupt("more trigrams than there are")
	case uint64(h.nnames) > entries*(maxPathLen+1):
		return h, corrupt("names longer than the paths they name allow")
	case h.metaLen > maxMetaLen:
		return h, corrupt("file table of %d bytes, more than a build writes", h.metaLen)
	case h.metaLen != metaLen(h.nfiles, h.nwatched, h.nnames, h.ntris):
		return h, corrupt("the file table's length does not follow from its counts")
	case h.postLen > 1<<32-1:
		return h, corrupt("postings too long")
	case uint64(headerSize)+h.metaLen+h.lookupLen()+h.postLen != uint64(fileSize):
		return h, corrupt("lengths do not add up to the file size")
	}
	return h, nil
}

// metaLen is the length of a file table of nf files, nw watched paths,
// names bytes of names and the directory of ntris trigrams' lookup blocks.
func metaLen(nf, nw, names, ntris uint32) uint64 {
	nblocks := (uint64(ntris) + lookupBlock - 1) / lookupBlock
	return 8 + (uint64(nf)+uint64(nw))*recordSize + 4*uint64(nf) + uint64(names) + 8*nblocks
}

// maxListLen bounds the posting list of a trigram in an index of nfiles
// files: each file at most once, as a uvarint of at most five bytes.
func maxListLen(nfiles uint32) uint64 { return 5 * uint64(nfiles) }

// total is the length of the file h heads.
func (h header) total() int64 { return h.postAt() + int64(h.postLen) }

// lookupLen is the length of the lookup table.
func (h header) lookupLen() uint64 { return uint64(h.ntris) * lookupSize }

// lookupAt and postAt are the offsets of the lookup table and the
// postings in the file.
func (h header) lookupAt() int64 { return headerSize + int64(h.metaLen) }
func (h header) postAt() int64   { return h.lookupAt() + int64(h.lookupLen()) }

// entry is one indexed file.
type entry struct {
	path  string // relative to the workspace root, with '/'
	stamp stamp
}

// stamp is what says a file is unchanged since it was indexed.
type stamp struct {
	size, mtime, ctime int64
	ino, dev           uint64
}

// lookupTable is the lookup table as a build writes it: its bytes and
// the directory of its blocks.
type lookupTable struct {
	b      []byte
	firsts []uint32 // first trigram of each block
	crcs   []uint32 // checksum of each block
}

// add appends trigram t's entry.
func (lk *lookupTable) add(t, off, n, crc uint32) {
	if len(lk.b)%(lookupBlock*lookupSize) == 0 {
		lk.firsts = append(lk.firsts, t)
	}
	lk.b = binary.LittleEndian.AppendUint32(lk.b, t)
	lk.b = binary.LittleEndian.AppendUint32(lk.b, off)
	lk.b = binary.LittleEndian.AppendUint32(lk.b, n)
	lk.b = binary.LittleEndian.AppendUint32(lk.b, crc)
}

// seal checksums the blocks.
func (lk *lookupTable) seal() {
	for i := 0; i < len(lk.b); i += lookupBlock * lookupSize {
		lk.crcs = append(lk.crcs, crc32.Checksum(lk.b[i:min(i+lookupBlock*lookupSize, len(lk.b))], castagnoli()))
	}
}

// lookupDir is the directory of the lookup table as read: per block,
// its first trigram and checksum.
type lookupDir struct {
	firsts, crcs []uint32
}

// block returns the block that would hold trigram t, or false when t
// precedes every trigram.
func (d *lookupDir) block(t uint32) (int, bool) {
	i, _ := slices.BinarySearch(d.firsts, t+1) // the first block starting after t
	return i - 1, i > 0
}

// lookupEntry is one entry of a lookup block.
type lookupEntry struct{ tri, off, n, crc uint32 }

func entryAt(b []byte, i int) lookupEntry {
	r := b[i*lookupSize:]
	return lookupEntry{
		tri: binary.LittleEndian.Uint32(r), off: binary.LittleEndian.Uint32(r[4:]),
		n: binary.LittleEndian.Uint32(r[8:]), crc: binary.LittleEndian.Uint32(r[12:]),
	}
}

// checkBlock checks block k of the lookup table, as read, against the
// directory and h: its checksum, its trigrams ascending from the block's
// first to below the next block's, and its lists inside the postings.
func checkBlock(h header, d *lookupDir, k int, b []byte) error {
	want := min(lookupBlock, int(h.ntris)-k*lookupBlock)
	if len(b) != want*lookupSize {
		return corrupt("short lookup block")
	}
	if crc32.Checksum(b, castagnoli()) != d.crcs[k] {
		return corrupt("lookup block checksum mismatch")
	}
	next := uint32(1 << 24)
	if k+1 < len(d.firsts) {
		next = d.firsts[k+1]
	}
	for i := range want {
		e := entryAt(b, i)
		if (i == 0 && e.tri != d.firsts[k]) || (i > 0 && e.tri <= entryAt(b, i-1).tri) ||
			e.tri >= next || uint64(e.off)+uint64(e.n) > h.postLen || uint64(e.n) > maxListLen(h.nfiles) {
			return corrupt("bad lookup entry")
		}
	}
	return nil
}

// findIn returns trigram t's entry in a checked block.
func findIn(b []byte, t uint32) (lookupEntry, bool) {
	n := len(b) / lookupSize
	i, j := 0, n
	for i < j {
		m := int(uint(i+j) >> 1)
		if entryAt(b, m).tri < t {
			i = m + 1
		} else {
			j = m
		}
	}
	if i < n {
		if e := entryAt(b, i); e.tri == t {
			return e, true
		}
	}
	return lookupEntry{}, false
}

// encodeMeta encodes the file table into a buffer of alloc.
func encodeMeta(files []entry, order []uint32, watched []entry, lk *lookupTable, alloc func(n int) []byte) []byte {
	names := 0
	for _, e := range files {
		names += len(e.path) + 1
	}
	for _, e := range watched {
		names += len(e.path) + 1
	}
	nrec := len(files) + len(watched)
	recs := 8
	at := recs + nrec*recordSize + 4*len(order)
	n := at + names + 8*len(lk.firsts)
	b := alloc(n)[:n]
	le := binary.LittleEndian
	le.PutUint32(b, uint32(len(watched)))
	le.PutUint32(b[4:], uint32(names))
	nameAt := 0
	put := func(e entry) {
		r := b[recs : recs+recordSize]
		le.PutUint32(r, uint32(nameAt))
		le.PutUint32(r[4:], uint32(len(e.path)))
		le.PutUint64(r[8:], uint64(e.stamp.size))
		le.PutUint64(r[16:], uint64(e.stamp.mtime))
		le.PutUint64(r[24:], uint64(e.stamp.ctime))
		le.PutUint64(r[32:], e.stamp.ino)
		le.PutUint64(r[40:], e.stamp.dev)
		recs += recordSize
		nameAt += copy(b[at+nameAt:], e.path)
		b[at+nameAt] = 0
		nameAt++
	}
	for _, e := range files {
		put(e)
	}
	for _, e := range watched {
		put(e)
	}
	for _, id := range order {
		le.PutUint32(b[recs:], id)
		recs += 4
	}
	at += names
	for i := range lk.firsts {
		le.PutUint32(b[at:], lk.firsts[i])
		le.PutUint32(b[at+4:], lk.crcs[i])
		at += 8
	}
	return b
}

// table is a run of records of the file table, as mapped: a path of
// table is a view of the mapping, valid while the snapshot holding the
// table is in use; whatever keeps one longer copies it.
type table struct {
	recs  []byte // n records of recordSize bytes
	names string // the paths, each ended by a NUL
}

func (t *table) len() int { return len(t.recs) / recordSize }

// path returns the path of record i; the byte after it in memory is a
// NUL.
func (t *table) path(i uint32) string {
	r := t.recs[int(i)*recordSize:]
	at, n := binary.LittleEndian.Uint32(r), binary.LittleEndian.Uint32(r[4:])
	return t.names[at : at+n]
}

// stamp returns the stamp of record i.
func (t *table) stamp(i uint32) stamp {
	r := t.recs[int(i)*recordSize : int(i+1)*recordSize]
	le := binary.LittleEndian
	return stamp{
		size: int64(le.Uint64(r[8:])), mtime: int64(le.Uint64(r[16:])), ctime: int64(le.Uint64(r[24:])),
		ino: le.Uint64(r[32:]), dev: le.Uint64(r[40:]),
	}
}

// entry returns record i.
func (t *table) entry(i uint32) entry { return entry{path: t.path(i), stamp: t.stamp(i)} }

// check checks that every record's path lies among the names, ends at a
// NUL and is a clean relative path.
func (t *table) check() error {
	le := binary.LittleEndian
	for i := 0; i < len(t.recs); i += recordSize {
		at, n := uint64(le.Uint32(t.recs[i:])), uint64(le.Uint32(t.recs[i+4:]))
		if at+n >= uint64(len(t.names)) || t.names[at+n] != 0 || !validRel(t.names[at:at+n]) {
			return corrupt("bad path in the file table")
		}
	}
	return nil
}

// openMeta checks meta against h and returns views of it: the files, the
// watched paths, the files' ids in path order and the lookup directory.
// meta is not copied; the views are valid while it is.
func openMeta(h header, meta []byte) (files, watched table, order []uint32, dir *lookupDir, err error) {
	if uint64(len(meta)) != metaLen(h.nfiles, h.nwatched, h.nnames, h.ntris) {
		return table{}, table{}, nil, nil, corrupt("short file table")
	}
	if crc32.Checksum(meta, castagnoli()) != h.metaCRC {
		return table{}, table{}, nil, nil, corrupt("file table checksum mismatch")
	}
	le := binary.LittleEndian
	nw, nnames := uint64(le.Uint32(meta)), uint64(le.Uint32(meta[4:]))
	if nw != uint64(h.nwatched) || nnames != uint64(h.nnames) {
		return table{}, table{}, nil, nil, corrupt("the file table's counts are not the header's")
	}
	nf := uint64(h.nfiles)
	nblocks := (uint64(h.ntris) + lookupBlock - 1) / lookupBlock
	if 8+(nf+nw)*recordSize+4*nf+nnames+8*nblocks != uint64(len(meta)) {
		return table{}, table{}, nil, nil, corrupt("the file table's parts do not add up to its length")
	}
	at := uint64(8)
	namesAt := at + (nf+nw)*recordSize + 4*nf
	names := unsafe.String(unsafe.SliceData(meta[namesAt:]), nnames)
	if nnames == 0 {
		names = ""
	}
	files = table{recs: meta[at : at+nf*recordSize], names: names}
	at += nf * recordSize
	watched = table{recs: meta[at : at+nw*recordSize], names: names}
	at += nw * recordSize
	if err := files.check(); err != nil {
		return table{}, table{}, nil, nil, err
	}
	if err := watched.check(); err != nil {
		return table{}, table{}, nil, nil, err
	}
	order = make([]uint32, nf)
	for i := range order {
		order[i] = le.Uint32(meta[at:])
		at += 4
		if order[i] >= h.nfiles || (i > 0 && files.path(order[i-1]) >= files.path(order[i])) {
			return table{}, table{}, nil, nil, corrupt("bad path order in the file table")
		}
	}
	for i := uint32(1); i < uint32(watched.len()); i++ {
		if watched.path(i-1) >= watched.path(i) {
			return table{}, table{}, nil, nil, corrupt("bad order of watched paths in the file table")
		}
	}
	at = namesAt + nnames
	dir = &lookupDir{firsts: make([]uint32, nblocks), crcs: make([]uint32, nblocks)}
	for k := range dir.firsts {
		dir.firsts[k], dir.crcs[k] = le.Uint32(meta[at:]), le.Uint32(meta[at+4:])
		at += 8
		if dir.firsts[k] >= 1<<24 || (k > 0 && dir.firsts[k] <= dir.firsts[k-1]) {
			return table{}, table{}, nil, nil, corrupt("bad lookup directory in the file table")
		}
	}
	return files, watched, order, dir, nil
}

// validRel reports whether p is a clean relative path below the root:
// not absolute, no NUL, no ".." component.
func validRel(p string) bool {
	return p != "" && p[0] != '/' && strings.IndexByte(p, 0) < 0 &&
		p != ".." && !strings.HasPrefix(p, "../") && !strings.HasSuffix(p, "/..") &&
		!strings.Contains(p, "/../")
}

// decodePostings calls add with each file id of one list, ascending; a
// list that is not strictly ascending or names a file beyond nfiles is
// corrupt (add may have seen part of it).
func decodePostings(b []byte, nfiles uint32, add func(id uint32)) error {
	var prev uint64
	first := true
	for len(b) > 0 {
		d, n := binary.Uvarint(b)
		if n <= 0 || (!first && d == 0) {
			return corrupt("bad posting list")
		}
		b = b[n:]
		if first {
			prev, first = d, false
		} else {
			prev += d
		}
		if prev >= uint64(nfiles) {
			return corrupt("posting names no file")
		}
		add(uint32(prev))
	}
	return nil
}
