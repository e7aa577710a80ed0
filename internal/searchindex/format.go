package searchindex

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"strings"
)

// The on-disk format, one file (FileName) written atomically:
//
//	header   64 bytes: magic, version, build time, counts, the lengths of
//	         the two parts, the checksum of meta, the header's own checksum
//	meta     the file table (per file: path relative to the workspace,
//	         size, mtime, ctime, inode, device; size -1 for a file whose
//	         content is not indexed), the files' ids in path order, the
//	         watched paths (a count, then path and stamp as for a file:
//	         the directories and ignore files the walk read, see tree.go),
//	         and the lookup table (per trigram, ascending: the trigram, its
//	         list's offset, length and checksum)
//	postings per trigram, the ids of the files holding it, ascending,
//	         as uvarint deltas
//
// Everything read is checked: a bad magic, version, length or checksum
// makes the whole index unusable (grep then scans), so a corrupt, foreign
// or half-written file is never trusted.

const (
	magic      = "INDUSIDX"
	version    = 2
	headerSize = 64
	lookupSize = 16 // trigram, offset, length, checksum: four uint32

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
		uint64(headerSize)+h.metaLen+h.postLen != uint64(fileSize) {
		return h, corrupt("lengths do not add up to the file size")
	}
	if h.postLen > 1<<32-1 {
		return h, corrupt("postings too long")
	}
	return h, nil
}

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

// lookupTable is the table of trigrams present, ascending, as a build
// writes it.
type lookupTable struct {
	tris, offs, lens, crcs []uint32
}

// lookup is the same table as read: its bytes, searched in place, so
// that loading an index allocates nothing per trigram.
type lookup struct {
	b []byte // lookupSize bytes per trigram
}

func (lk *lookup) len() int { return len(lk.b) / lookupSize }

func (lk *lookup) tri(i int) uint32 { return binary.LittleEndian.Uint32(lk.b[i*lookupSize:]) }

// list returns where trigram i's posting list lies in the postings, and
// its checksum.
func (lk *lookup) list(i int) (off, n, crc uint32) {
	r := lk.b[i*lookupSize:]
	return binary.LittleEndian.Uint32(r[4:]), binary.LittleEndian.Uint32(r[8:]), binary.LittleEndian.Uint32(r[12:])
}

func encodeMeta(files []entry, order []uint32, watched []entry, lk *lookupTable) []byte {
	var b []byte
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
	for i := range lk.tris {
		b = binary.LittleEndian.AppendUint32(b, lk.tris[i])
		b = binary.LittleEndian.AppendUint32(b, lk.offs[i])
		b = binary.LittleEndian.AppendUint32(b, lk.lens[i])
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
func decodeMeta(h header, b []byte) (files []entry, order []uint32, watched []entry, lk *lookup, err error) {
	if crc32.Checksum(b, castagnoli) != h.metaCRC {
		return nil, nil, nil, nil, corrupt("file table checksum mismatch")
	}
	// Each file takes at least 11 bytes and each trigram 16: counts beyond
	// what the bytes can hold are refused before anything is allocated.
	if uint64(h.nfiles)*11+uint64(h.ntris)*lookupSize > uint64(len(b)) {
		return nil, nil, nil, nil, corrupt("counts exceed the file table")
	}
	r := &metaReader{b: b}
	// The paths are substrings of one string of the whole table: one
	// allocation, not one per file.
	text := string(b[:len(b)-int(h.ntris)*lookupSize])
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
	if len(r.b) != int(h.ntris)*lookupSize {
		return nil, nil, nil, nil, corrupt("bad lookup table in the file table")
	}
	lk = &lookup{b: r.b}
	for i := range lk.len() {
		t := lk.tri(i)
		off, n, _ := lk.list(i)
		if t >= 1<<24 || (i > 0 && t <= lk.tri(i-1)) || uint64(off)+uint64(n) > h.postLen {
			return nil, nil, nil, nil, corrupt("bad lookup entry in the file table")
		}
	}
	return files, order, watched, lk, nil
}

// validRel reports whether p is a clean relative path below the root.
func validRel(p string) bool {
	if p == "" || p[0] == '/' || strings.ContainsRune(p, 0) {
		return false
	}
	for p != "" {
		var part string
		part, p, _ = strings.Cut(p, "/")
		if part == ".." {
			return false
		}
	}
	return true
}

// find returns the position of trigram t in the lookup table.
func (lk *lookup) find(t uint32) (int, bool) {
	i, j := 0, lk.len()
	for i < j {
		h := int(uint(i+j) >> 1)
		if lk.tri(h) < t {
			i = h + 1
		} else {
			j = h
		}
	}
	return i, i < lk.len() && lk.tri(i) == t
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
