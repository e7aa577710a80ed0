package indexfile

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
	Magic      = "INDUSIDX"
	Version    = 5
	HeaderSize = 64
	LookupSize = 16 // trigram, offset, length, checksum: four uint32
	RecordSize = 48 // path offset and length (uint32 each), five 64-bit stamp fields

	// lookupBlock is how many lookup entries share one checksum: a
	// query reads and checks a block (lookupBlock*lookupSize bytes) per
	// trigram it needs.
	LookupBlock = 256

	// FileName is the index file inside the index folder.
	FileName = "grep-trigrams.idx"

	// maxMetaLen bounds the file table: a file claiming more is refused
	// from its header, and a build that would write more fails. It is
	// about ten million files of workspace, far beyond any tree the deck
	// serves (a tree of 33,000 files takes under 3 MiB), and it bounds
	// what opening an index maps and checks.
	MaxMetaLen = 1 << 30

	// maxPathLen is the longest path Linux names (PATH_MAX).
	maxPathLen = 4096

	// maxTrigrams is how many distinct trigrams of bytes there are.
	maxTrigrams = 1 << 24
)

// castagnoli is the checksum table, made on first use so that a command
// that never opens the index does not pay for it at start.
var castagnoli = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

// Castagnoli is the table of every checksum of the index.
func Castagnoli() *crc32.Table { return castagnoli() }

// errCorrupt wraps every reason an index file is refused.
var ErrCorrupt = errors.New("search index is corrupt or of another version")

func Corrupt(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrCorrupt, fmt.Sprintf(format, args...))
}

// Header flags.
const (
	// flagComplete: the table lists every file the walk admitted, and
	// the watched stamps cover everything else the walk read.
	FlagComplete = 1 << iota
)

// unindexed is the size recorded for a file in the table whose content
// is not indexed (too large, unreadable, over the memory budget).
const Unindexed = -1

// header is the fixed start of the file.
type Header struct {
	Flags    uint32
	Built    int64 // unix nanoseconds when the build began
	NFiles   uint32
	NTris    uint32
	MetaLen  uint64
	PostLen  uint64
	MetaCRC  uint32
	NWatched uint32 // watched paths in the file table
	NNames   uint32 // bytes of the paths' names in the file table
}

func (h Header) Encode() []byte {
	b := make([]byte, HeaderSize)
	copy(b, Magic)
	binary.LittleEndian.PutUint32(b[8:], Version)
	binary.LittleEndian.PutUint32(b[12:], h.Flags)
	binary.LittleEndian.PutUint64(b[16:], uint64(h.Built))
	binary.LittleEndian.PutUint32(b[24:], h.NFiles)
	binary.LittleEndian.PutUint32(b[28:], h.NTris)
	binary.LittleEndian.PutUint64(b[32:], h.MetaLen)
	binary.LittleEndian.PutUint64(b[40:], h.PostLen)
	binary.LittleEndian.PutUint32(b[48:], h.MetaCRC)
	binary.LittleEndian.PutUint32(b[52:], h.NWatched)
	binary.LittleEndian.PutUint32(b[56:], h.NNames)
	binary.LittleEndian.PutUint32(b[60:], crc32.Checksum(b[:60], Castagnoli()))
	return b
}

func DecodeHeader(b []byte, fileSize int64) (Header, error) {
	var h Header
	if len(b) < HeaderSize || string(b[:8]) != Magic {
		return h, Corrupt("no index header")
	}
	if v := binary.LittleEndian.Uint32(b[8:]); v != Version {
		return h, Corrupt("format version %d, want %d", v, Version)
	}
	if crc32.Checksum(b[:60], Castagnoli()) != binary.LittleEndian.Uint32(b[60:]) {
		return h, Corrupt("header checksum mismatch")
	}
	h.Flags = binary.LittleEndian.Uint32(b[12:])
	h.Built = int64(binary.LittleEndian.Uint64(b[16:]))
	h.NFiles = binary.LittleEndian.Uint32(b[24:])
	h.NTris = binary.LittleEndian.Uint32(b[28:])
	h.MetaLen = binary.LittleEndian.Uint64(b[32:])
	h.PostLen = binary.LittleEndian.Uint64(b[40:])
	h.MetaCRC = binary.LittleEndian.Uint32(b[48:])
	h.NWatched = binary.LittleEndian.Uint32(b[52:])
	h.NNames = binary.LittleEndian.Uint32(b[56:])
	// Each bound before the sum, so that no sum overflows.
	switch entries := uint64(h.NFiles) + uint64(h.NWatched); {
	case uint64(h.NTris) > maxTrigrams:
		return h, Corrupt("more trigrams than there are")
	case uint64(h.NNames) > entries*(maxPathLen+1):
		return h, Corrupt("names longer than the paths they name allow")
	case h.MetaLen > MaxMetaLen:
		return h, Corrupt("file table of %d bytes, more than a build writes", h.MetaLen)
	case h.MetaLen != MetaLenOf(h.NFiles, h.NWatched, h.NNames, h.NTris):
		return h, Corrupt("the file table's length does not follow from its counts")
	case h.PostLen > 1<<32-1:
		return h, Corrupt("postings too long")
	case uint64(HeaderSize)+h.MetaLen+h.LookupLen()+h.PostLen != uint64(fileSize):
		return h, Corrupt("lengths do not add up to the file size")
	}
	return h, nil
}

// metaLen is the length of a file table of nf files, nw watched paths,
// names bytes of names and the directory of ntris trigrams' lookup blocks.
func MetaLenOf(nf, nw, names, ntris uint32) uint64 {
	nblocks := (uint64(ntris) + LookupBlock - 1) / LookupBlock
	return 8 + (uint64(nf)+uint64(nw))*RecordSize + 4*uint64(nf) + uint64(names) + 8*nblocks
}

// maxListLen bounds the posting list of a trigram in an index of nfiles
// files: each file at most once, as a uvarint of at most five bytes.
func MaxListLen(nfiles uint32) uint64 { return 5 * uint64(nfiles) }

// total is the length of the file h heads.
func (h Header) Total() int64 { return h.PostAt() + int64(h.PostLen) }

// lookupLen is the length of the lookup table.
func (h Header) LookupLen() uint64 { return uint64(h.NTris) * LookupSize }

// lookupAt and postAt are the offsets of the lookup table and the
// postings in the file.
func (h Header) LookupAt() int64 { return HeaderSize + int64(h.MetaLen) }
func (h Header) PostAt() int64   { return h.LookupAt() + int64(h.LookupLen()) }

// entry is one indexed file.
type Entry struct {
	Path  string // relative to the workspace root, with '/'
	Stamp Stamp
}

// stamp is what says a file is unchanged since it was indexed.
type Stamp struct {
	Size, Mtime, Ctime int64
	Ino, Dev           uint64
}

// lookupTable is the lookup table as a build writes it: its bytes and
// the directory of its blocks.
type LookupTable struct {
	B      []byte
	Firsts []uint32 // first trigram of each block
	CRCs   []uint32 // checksum of each block
}

// add appends trigram t's entry.
func (lk *LookupTable) Add(t, off, n, crc uint32) {
	if len(lk.B)%(LookupBlock*LookupSize) == 0 {
		lk.Firsts = append(lk.Firsts, t)
	}
	lk.B = binary.LittleEndian.AppendUint32(lk.B, t)
	lk.B = binary.LittleEndian.AppendUint32(lk.B, off)
	lk.B = binary.LittleEndian.AppendUint32(lk.B, n)
	lk.B = binary.LittleEndian.AppendUint32(lk.B, crc)
}

// seal checksums the blocks.
func (lk *LookupTable) Seal() {
	for i := 0; i < len(lk.B); i += LookupBlock * LookupSize {
		lk.CRCs = append(lk.CRCs, crc32.Checksum(lk.B[i:min(i+LookupBlock*LookupSize, len(lk.B))], Castagnoli()))
	}
}

// lookupDir is the directory of the lookup table as read: per block,
// its first trigram and checksum.
type LookupDir struct {
	Firsts, CRCs []uint32
}

// block returns the block that would hold trigram t, or false when t
// precedes every trigram.
func (d *LookupDir) Block(t uint32) (int, bool) {
	i, _ := slices.BinarySearch(d.Firsts, t+1) // the first block starting after t
	return i - 1, i > 0
}

// lookupEntry is one entry of a lookup block.
type LookupEntry struct{ Tri, Off, N, CRC uint32 }

func EntryAt(b []byte, i int) LookupEntry {
	r := b[i*LookupSize:]
	return LookupEntry{
		Tri: binary.LittleEndian.Uint32(r), Off: binary.LittleEndian.Uint32(r[4:]),
		N: binary.LittleEndian.Uint32(r[8:]), CRC: binary.LittleEndian.Uint32(r[12:]),
	}
}

// checkBlock checks block k of the lookup table, as read, against the
// directory and h: its checksum, its trigrams ascending from the block's
// first to below the next block's, and its lists inside the postings.
func CheckBlock(h Header, d *LookupDir, k int, b []byte) error {
	want := min(LookupBlock, int(h.NTris)-k*LookupBlock)
	if len(b) != want*LookupSize {
		return Corrupt("short lookup block")
	}
	if crc32.Checksum(b, Castagnoli()) != d.CRCs[k] {
		return Corrupt("lookup block checksum mismatch")
	}
	next := uint32(1 << 24)
	if k+1 < len(d.Firsts) {
		next = d.Firsts[k+1]
	}
	for i := range want {
		e := EntryAt(b, i)
		if (i == 0 && e.Tri != d.Firsts[k]) || (i > 0 && e.Tri <= EntryAt(b, i-1).Tri) ||
			e.Tri >= next || uint64(e.Off)+uint64(e.N) > h.PostLen || uint64(e.N) > MaxListLen(h.NFiles) {
			return Corrupt("bad lookup entry")
		}
	}
	return nil
}

// findIn returns trigram t's entry in a checked block.
func FindIn(b []byte, t uint32) (LookupEntry, bool) {
	n := len(b) / LookupSize
	i, j := 0, n
	for i < j {
		m := int(uint(i+j) >> 1)
		if EntryAt(b, m).Tri < t {
			i = m + 1
		} else {
			j = m
		}
	}
	if i < n {
		if e := EntryAt(b, i); e.Tri == t {
			return e, true
		}
	}
	return LookupEntry{}, false
}

// encodeMeta encodes the file table into a buffer of alloc.
func EncodeMeta(files []Entry, order []uint32, watched []Entry, lk *LookupTable, alloc func(n int) []byte) []byte {
	names := 0
	for _, e := range files {
		names += len(e.Path) + 1
	}
	for _, e := range watched {
		names += len(e.Path) + 1
	}
	nrec := len(files) + len(watched)
	recs := 8
	at := recs + nrec*RecordSize + 4*len(order)
	n := at + names + 8*len(lk.Firsts)
	b := alloc(n)[:n]
	le := binary.LittleEndian
	le.PutUint32(b, uint32(len(watched)))
	le.PutUint32(b[4:], uint32(names))
	nameAt := 0
	put := func(e Entry) {
		r := b[recs : recs+RecordSize]
		le.PutUint32(r, uint32(nameAt))
		le.PutUint32(r[4:], uint32(len(e.Path)))
		le.PutUint64(r[8:], uint64(e.Stamp.Size))
		le.PutUint64(r[16:], uint64(e.Stamp.Mtime))
		le.PutUint64(r[24:], uint64(e.Stamp.Ctime))
		le.PutUint64(r[32:], e.Stamp.Ino)
		le.PutUint64(r[40:], e.Stamp.Dev)
		recs += RecordSize
		nameAt += copy(b[at+nameAt:], e.Path)
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
	for i := range lk.Firsts {
		le.PutUint32(b[at:], lk.Firsts[i])
		le.PutUint32(b[at+4:], lk.CRCs[i])
		at += 8
	}
	return b
}

// table is a run of records of the file table, as mapped: a path of
// table is a view of the mapping, valid while the snapshot holding the
// table is in use; whatever keeps one longer copies it.
type Table struct {
	recs  []byte // n records of recordSize bytes
	names string // the paths, each ended by a NUL
}

func (t *Table) Len() int { return len(t.recs) / RecordSize }

// path returns the path of record i; the byte after it in memory is a
// NUL.
func (t *Table) Path(i uint32) string {
	r := t.recs[int(i)*RecordSize:]
	at, n := binary.LittleEndian.Uint32(r), binary.LittleEndian.Uint32(r[4:])
	return t.names[at : at+n]
}

// stamp returns the stamp of record i.
func (t *Table) Stamp(i uint32) Stamp {
	r := t.recs[int(i)*RecordSize : int(i+1)*RecordSize]
	le := binary.LittleEndian
	return Stamp{
		Size: int64(le.Uint64(r[8:])), Mtime: int64(le.Uint64(r[16:])), Ctime: int64(le.Uint64(r[24:])),
		Ino: le.Uint64(r[32:]), Dev: le.Uint64(r[40:]),
	}
}

// entry returns record i.
func (t *Table) Entry(i uint32) Entry { return Entry{Path: t.Path(i), Stamp: t.Stamp(i)} }

// check checks that every record's path lies among the names, ends at a
// NUL and is a clean relative path.
func (t *Table) check() error {
	le := binary.LittleEndian
	for i := 0; i < len(t.recs); i += RecordSize {
		at, n := uint64(le.Uint32(t.recs[i:])), uint64(le.Uint32(t.recs[i+4:]))
		if at+n >= uint64(len(t.names)) || t.names[at+n] != 0 || !ValidRel(t.names[at:at+n]) {
			return Corrupt("bad path in the file table")
		}
	}
	return nil
}

// openMeta checks meta against h and returns views of it: the files, the
// watched paths, the files' ids in path order and the lookup directory.
// meta is not copied; the views are valid while it is.
func OpenMeta(h Header, meta []byte) (files, watched Table, order []uint32, dir *LookupDir, err error) {
	if uint64(len(meta)) != MetaLenOf(h.NFiles, h.NWatched, h.NNames, h.NTris) {
		return Table{}, Table{}, nil, nil, Corrupt("short file table")
	}
	if crc32.Checksum(meta, Castagnoli()) != h.MetaCRC {
		return Table{}, Table{}, nil, nil, Corrupt("file table checksum mismatch")
	}
	le := binary.LittleEndian
	nw, nnames := uint64(le.Uint32(meta)), uint64(le.Uint32(meta[4:]))
	if nw != uint64(h.NWatched) || nnames != uint64(h.NNames) {
		return Table{}, Table{}, nil, nil, Corrupt("the file table's counts are not the header's")
	}
	nf := uint64(h.NFiles)
	nblocks := (uint64(h.NTris) + LookupBlock - 1) / LookupBlock
	if 8+(nf+nw)*RecordSize+4*nf+nnames+8*nblocks != uint64(len(meta)) {
		return Table{}, Table{}, nil, nil, Corrupt("the file table's parts do not add up to its length")
	}
	at := uint64(8)
	namesAt := at + (nf+nw)*RecordSize + 4*nf
	names := unsafe.String(unsafe.SliceData(meta[namesAt:]), nnames)
	if nnames == 0 {
		names = ""
	}
	files = Table{recs: meta[at : at+nf*RecordSize], names: names}
	at += nf * RecordSize
	watched = Table{recs: meta[at : at+nw*RecordSize], names: names}
	at += nw * RecordSize
	if err := files.check(); err != nil {
		return Table{}, Table{}, nil, nil, err
	}
	if err := watched.check(); err != nil {
		return Table{}, Table{}, nil, nil, err
	}
	order = make([]uint32, nf)
	for i := range order {
		order[i] = le.Uint32(meta[at:])
		at += 4
		if order[i] >= h.NFiles || (i > 0 && files.Path(order[i-1]) >= files.Path(order[i])) {
			return Table{}, Table{}, nil, nil, Corrupt("bad path order in the file table")
		}
	}
	for i := uint32(1); i < uint32(watched.Len()); i++ {
		if watched.Path(i-1) >= watched.Path(i) {
			return Table{}, Table{}, nil, nil, Corrupt("bad order of watched paths in the file table")
		}
	}
	at = namesAt + nnames
	dir = &LookupDir{Firsts: make([]uint32, nblocks), CRCs: make([]uint32, nblocks)}
	for k := range dir.Firsts {
		dir.Firsts[k], dir.CRCs[k] = le.Uint32(meta[at:]), le.Uint32(meta[at+4:])
		at += 8
		if dir.Firsts[k] >= 1<<24 || (k > 0 && dir.Firsts[k] <= dir.Firsts[k-1]) {
			return Table{}, Table{}, nil, nil, Corrupt("bad lookup directory in the file table")
		}
	}
	return files, watched, order, dir, nil
}

// validRel reports whether p is a clean relative path below the root:
// not absolute, no NUL, no ".." component.
func ValidRel(p string) bool {
	return p != "" && p[0] != '/' && strings.IndexByte(p, 0) < 0 &&
		p != ".." && !strings.HasPrefix(p, "../") && !strings.HasSuffix(p, "/..") &&
		!strings.Contains(p, "/../")
}

// decodePostings calls add with each file id of one list, ascending; a
// list that is not strictly ascending or names a file beyond nfiles is
// corrupt (add may have seen part of it).
func DecodePostings(b []byte, nfiles uint32, add func(id uint32)) error {
	var prev uint64
	first := true
	for len(b) > 0 {
		d, n := binary.Uvarint(b)
		if n <= 0 || (!first && d == 0) {
			return Corrupt("bad posting list")
		}
		b = b[n:]
		if first {
			prev, first = d, false
		} else {
			prev += d
		}
		if prev >= uint64(nfiles) {
			return Corrupt("posting names no file")
		}
		add(uint32(prev))
	}
	return nil
}
