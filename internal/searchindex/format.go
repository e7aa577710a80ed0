package searchindex

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"slices"
	"strings"
)

// The on-disk format, one file (FileName) written atomically:
//
//	header   64 bytes: magic, version, build time, counts, the lengths of
//	         meta and the postings, the checksum of meta, the header's own
//	         checksum
//	meta     the file table (per file: path relative to the workspace,
//	         size, mtime, ctime, inode, device; size -1 for a file whose
//	         content is not indexed), the files' ids in path order, the
//	         watched paths (a count, then path and stamp as for a file:
//	         the directories and ignore files the walk read, see tree.go),
//	         and the directory of the lookup table: per block of
//	         lookupBlock entries, its first trigram and its checksum
//	lookup   per trigram, ascending: the trigram, its list's offset,
//	         length and checksum (lookupSize bytes each)
//	postings per trigram, the ids of the files holding it, ascending,
//	         as uvarint deltas
//
// Everything read is checked: a bad magic, version, length or checksum
// makes the whole index unusable (grep then scans), so a corrupt, foreign
// or half-written file is never trusted. Loading reads the header and
// meta only; a query reads the lookup blocks and lists it needs and
// checks each before use, so a one-shot grep pays for the file table,
// not for the whole lookup table.

const (
	magic      = "INDUSIDX"
	version    = 3
	headerSize = 64
	lookupSize = 16 // trigram, offset, length, checksum: four uint32

	// lookupBlock is how many lookup entries share one checksum: a
	// query reads and checks a block (lookupBlock*lookupSize bytes) per
	// trigram it needs.
	lookupBlock = 256

	// FileName is the index file inside the index folder.
	FileName = "grep-trigrams.idx"
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

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
	flags   uint32
	built   int64 // unix nanoseconds when the build began
	nfiles  uint32
	ntris   uint32
	metaLen uint64
	postLen uint64
	metaCRC uint32
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
	binary.LittleEndian.PutUint32(b[52:], crc32.Checksum(b[:52], castagnoli))
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
	if crc32.Checksum(b[:52], castagnoli) != binary.LittleEndian.Uint32(b[52:]) {
		return h, corrupt("header checksum mismatch")
	}
	h.flags = binary.LittleEndian.Uint32(b[12:])
	h.built = int64(binary.LittleEndian.Uint64(b[16:]))
	h.nfiles = binary.LittleEndian.Uint32(b[24:])
	h.ntris = binary.LittleEndian.Uint32(b[28:])
	h.metaLen = binary.LittleEndian.Uint64(b[32:])
	h.postLen = binary.LittleEndian.Uint64(b[40:])
	h.metaCRC = binary.LittleEndian.Uint32(b[48:])
	if h.metaLen > uint64(fileSize) || h.postLen > uint64(fileSize) ||
		uint64(headerSize)+h.metaLen+h.lookupLen()+h.postLen != uint64(fileSize) {
		return h, corrupt("lengths do not add up to the file size")
	}
	if h.postLen > 1<<32-1 {
		return h, corrupt("postings too long")
	}
	return h, nil
}

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
		lk.crcs = append(lk.crcs, crc32.Checksum(lk.b[i:min(i+lookupBlock*lookupSize, len(lk.b))], castagnoli))
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
	if crc32.Checksum(b, castagnoli) != d.crcs[k] {
		return corrupt("lookup block checksum mismatch")
	}
	next := uint32(1 << 24)
	if k+1 < len(d.firsts) {
		next = d.firsts[k+1]
	}
	for i := range want {
		e := entryAt(b, i)
		if (i == 0 && e.tri != d.firsts[k]) || (i > 0 && e.tri <= entryAt(b, i-1).tri) ||
			e.tri >= next || uint64(e.off)+uint64(e.n) > h.postLen {
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
	// Sized once for the usual stamp (32 bytes and the path): the pages
	// of a table grown by doubling cost a build more than its bytes.
	n := 4*len(order) + 8*len(lk.firsts) + binary.MaxVarintLen64
	for _, e := range files {
		n += len(e.path) + 32
	}
	for _, e := range watched {
		n += len(e.path) + 32
	}
	b := alloc(n)[:0]
	put := func(e entry) {
		b = binary.AppendUvarint(b, uint64(len(e.path)))
		b = append(b, e.path...)
		b = binary.AppendVarint(b, e.stamp.size)
		b = binary.AppendVarint(b, e.stamp.mtime)
		b = binary.AppendVarint(b, e.stamp.ctime)
		b = binary.AppendUvarint(b, e.stamp.ino)
		b = binary.AppendUvarint(b, e.stamp.dev)
	}
	for _, e := range files {
		put(e)
	}
	for _, id := range order {
		b = binary.LittleEndian.AppendUint32(b, id)
	}
	b = binary.AppendUvarint(b, uint64(len(watched)))
	for _, e := range watched {
		put(e)
	}
	for i := range lk.firsts {
		b = binary.LittleEndian.AppendUint32(b, lk.firsts[i])
		b = binary.LittleEndian.AppendUint32(b, lk.crcs[i])
	}
	return b
}

// metaReader reads meta with bounds checks: a short or malformed part
// sets err and every later read returns zero.
type metaReader struct {
	b   []byte
	err error
}

func (r *metaReader) fail(what string) {
	if r.err == nil {
		r.err = corrupt("bad %s in the file table", what)
	}
	r.b = nil
}

func (r *metaReader) uvarint(what string) uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail(what)
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *metaReader) varint(what string) int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.fail(what)
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *metaReader) u32(what string) uint32 {
	if len(r.b) < 4 {
		r.fail(what)
		return 0
	}
	v := binary.LittleEndian.Uint32(r.b)
	r.b = r.b[4:]
	return v
}

// decodeMeta parses and checks meta against h.
func decodeMeta(h header, b []byte) (files []entry, order []uint32, watched []entry, dir *lookupDir, err error) {
	if crc32.Checksum(b, castagnoli) != h.metaCRC {
		return nil, nil, nil, nil, corrupt("file table checksum mismatch")
	}
	// Each file takes at least 11 bytes and each lookup block 8: counts
	// beyond what the bytes can hold are refused before anything is
	// allocated.
	nblocks := (uint64(h.ntris) + lookupBlock - 1) / lookupBlock
	if uint64(h.nfiles)*11+nblocks*8 > uint64(len(b)) {
		return nil, nil, nil, nil, corrupt("counts exceed the file table")
	}
	r := &metaReader{b: b}
	// The paths are substrings of one string of the whole table: one
	// allocation, not one per file.
	text := string(b[:len(b)-int(nblocks)*8])
	next := func() (entry, bool) {
		n := r.uvarint("path length")
		at := len(b) - len(r.b)
		if n == 0 || n > uint64(len(r.b)) || at+int(n) > len(text) {
			r.fail("path")
			return entry{}, false
		}
		p := text[at : at+int(n)]
		r.b = r.b[n:]
		if !validRel(p) {
			r.fail("path")
			return entry{}, false
		}
		return entry{path: p, stamp: stamp{
			size: r.varint("size"), mtime: r.varint("mtime"), ctime: r.varint("ctime"),
			ino: r.uvarint("inode"), dev: r.uvarint("device"),
		}}, r.err == nil
	}
	files = make([]entry, h.nfiles)
	for i := range files {
		var ok bool
		if files[i], ok = next(); !ok {
			break
		}
	}
	order = make([]uint32, h.nfiles)
	for i := range order {
		order[i] = r.u32("order")
		if order[i] >= h.nfiles {
			r.fail("order")
		}
		if i > 0 && r.err == nil && files[order[i-1]].path >= files[order[i]].path {
			r.fail("order")
		}
	}
	nw := r.uvarint("watched count")
	if nw > uint64(len(r.b))/11 {
		r.fail("watched count")
	}
	for range nw {
		e, ok := next()
		if !ok {
			break
		}
		watched = append(watched, e)
	}
	if r.err != nil {
		return nil, nil, nil, nil, r.err
	}
	if uint64(len(r.b)) != nblocks*8 {
		return nil, nil, nil, nil, corrupt("bad lookup directory in the file table")
	}
	dir = &lookupDir{firsts: make([]uint32, nblocks), crcs: make([]uint32, nblocks)}
	for k := range dir.firsts {
		dir.firsts[k], dir.crcs[k] = r.u32("lookup directory"), r.u32("lookup directory")
		if dir.firsts[k] >= 1<<24 || (k > 0 && dir.firsts[k] <= dir.firsts[k-1]) {
			return nil, nil, nil, nil, corrupt("bad lookup directory in the file table")
		}
	}
	return files, order, watched, dir, nil
}

// validRel reports whether p is a clean relative path below the root:
// not absolute, no NUL, no ".." component.
func validRel(p string) bool {
	return p != "" && p[0] != '/' && strings.IndexByte(p, 0) < 0 &&
		p != ".." && !strings.HasPrefix(p, "../") && !strings.HasSuffix(p, "/..") &&
		!strings.Contains(p, "/../")
}

// decodePostings appends the file ids of one list to ids; a list that is
// not strictly ascending or names a file beyond nfiles is corrupt.
func decodePostings(b []byte, nfiles uint32, ids []uint32) ([]uint32, error) {
	var prev uint64
	first := true
	for len(b) > 0 {
		d, n := binary.Uvarint(b)
		if n <= 0 || (!first && d == 0) {
			return ids, corrupt("bad posting list")
		}
		b = b[n:]
		if first {
			prev, first = d, false
		} else {
			prev += d
		}
		if prev >= uint64(nfiles) {
			return ids, corrupt("posting names no file")
		}
		ids = append(ids, uint32(prev))
	}
	return ids, nil
}
