package indexfile

import (
	"encoding/binary"
	"hash/crc32"
	"strings"
	"testing"
)

// TestValidRel: a path of the file table never leads out of the root,
// since grep opens what the table lists.
func TestValidRel(t *testing.T) {
	for p, want := range map[string]bool{
		"a": true, "a/b.go": true, "a..b": true, "..a/b": true, "a/..b": true, "a/b..": true,
		"": false, "/etc/passwd": false, "..": false, "../a": false, "a/..": false,
		"a/../b": false, "a/b/../../..": false, "a\x00b": false,
	} {
		if got := ValidRel(p); got != want {
			t.Errorf("validRel(%q) = %v, want %v", p, got, want)
		}
	}
}

// TestOpenMetaRefusesWhatItCannotUse: a file table whose checksum is
// right (as a hostile index's would be) but whose paths lead out of the
// root, overlap the names' end, lack their NUL or break the path order
// is refused whole; a sound one reads back as written.
func TestOpenMetaRefusesWhatItCannotUse(t *testing.T) {
	st := Stamp{Size: 5, Mtime: 1, Ctime: 2, Ino: 3, Dev: 4}
	files := []Entry{{"b/c.go", st}, {"a.txt", Stamp{Size: Unindexed}}}
	watched := []Entry{{".gitignore", st}, {"b", st}}
	order := []uint32{1, 0}
	lk := &LookupTable{Firsts: []uint32{7}, CRCs: []uint32{9}}
	sealed := func(meta []byte) (Header, []byte) {
		return Header{NFiles: uint32(len(files)), NTris: 1, MetaLen: uint64(len(meta)),
			MetaCRC:  crc32.Checksum(meta, Castagnoli()),
			NWatched: binary.LittleEndian.Uint32(meta), NNames: binary.LittleEndian.Uint32(meta[4:])}, meta
	}
	enc := func() []byte {
		return EncodeMeta(files, order, watched, lk, func(n int) []byte { return make([]byte, n) })
	}

	h, meta := sealed(enc())
	f, w, o, dir, err := OpenMeta(h, meta)
	if err != nil {
		t.Fatalf("a sound table is refused: %v", err)
	}
	if f.Entry(0) != files[0] || f.Entry(1) != files[1] || w.Entry(1) != watched[1] || o[0] != 1 || dir.Firsts[0] != 7 {
		t.Fatalf("read back %v %v %v %v %v", f.Entry(0), f.Entry(1), w.Entry(1), o, dir.Firsts)
	}

	names := 8 + 4*RecordSize + 4*len(order) // where the names start
	for name, damage := range map[string]func([]byte){
		"path out of the root": func(m []byte) { copy(m[names:], "../c.go") },
		"absolute path":        func(m []byte) { m[names] = '/' },
		"NUL inside a path":    func(m []byte) { m[names+1] = 0 },
		"no NUL after a path":  func(m []byte) { m[names+len("b/c.go")] = 'x' },
		"path past the names":  func(m []byte) { binary.LittleEndian.PutUint32(m[8:], 1<<20) },
		"long path length":     func(m []byte) { binary.LittleEndian.PutUint32(m[12:], 1<<20) },
		"order out of range":   func(m []byte) { binary.LittleEndian.PutUint32(m[8+4*RecordSize:], 2) },
		"order not by path":    func(m []byte) { binary.LittleEndian.PutUint32(m[8+4*RecordSize:], 0) },
		"watched not by path":  func(m []byte) { copy(m[strings.Index(string(m), ".gitignore"):], "z") },
		"watched count":        func(m []byte) { binary.LittleEndian.PutUint32(m, 3) },
		"names length":         func(m []byte) { binary.LittleEndian.PutUint32(m[4:], 1) },
	} {
		m := enc()
		damage(m)
		if _, _, _, _, err := OpenMeta(sealed(m)); err == nil {
			t.Errorf("%s: the table was accepted", name)
		}
	}
	h, meta = sealed(enc())
	meta[len(meta)-1] ^= 1
	if _, _, _, _, err := OpenMeta(h, meta); err == nil {
		t.Error("a table that does not match its checksum was accepted")
	}
}

// TestCheckBlockBoundsListLength: a lookup entry whose posting list is
// longer than its index's file count allows is refused before the list
// is read, however long the postings are.
func TestCheckBlockBoundsListLength(t *testing.T) {
	h := Header{NFiles: 2, NTris: 1, PostLen: 1 << 30}
	for n, ok := range map[uint32]bool{10: true, 11: false, 1 << 29: false} {
		lk := &LookupTable{}
		lk.Add(7, 0, n, 0)
		lk.Seal()
		err := CheckBlock(h, &LookupDir{Firsts: lk.Firsts, CRCs: lk.CRCs}, 0, lk.B)
		if (err == nil) != ok {
			t.Errorf("a list of %d bytes in an index of 2 files: %v", n, err)
		}
	}
}
