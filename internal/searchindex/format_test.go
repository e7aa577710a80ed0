package searchindex

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
		if got := validRel(p); got != want {
			t.Errorf("validRel(%q) = %v, want %v", p, got, want)
		}
	}
}

// TestOpenMetaRefusesWhatItCannotUse: a file table whose checksum is
// right (as a hostile index's would be) but whose paths lead out of the
// root, overlap the names' end, lack their NUL or break the path order
// is refused whole; a sound one reads back as written.
func TestOpenMetaRefusesWhatItCannotUse(t *testing.T) {
	st := stamp{size: 5, mtime: 1, ctime: 2, ino: 3, dev: 4}
	files := []entry{{"b/c.go", st}, {"a.txt", stamp{size: unindexed}}}
	watched := []entry{{".gitignore", st}, {"b", st}}
	order := []uint32{1, 0}
	lk := &lookupTable{firsts: []uint32{7}, crcs: []uint32{9}}
	sealed := func(meta []byte) (header, []byte) {
		return header{nfiles: uint32(len(files)), ntris: 1, metaLen: uint64(len(meta)),
			metaCRC:  crc32.Checksum(meta, castagnoli()),
			nwatched: binary.LittleEndian.Uint32(meta), nnames: binary.LittleEndian.Uint32(meta[4:])}, meta
	}
	enc := func() []byte {
		return encodeMeta(files, order, watched, lk, func(n int) []byte { return make([]byte, n) })
	}

	h, meta := sealed(enc())
	f, w, o, dir, err := openMeta(h, meta)
	if err != nil {
		t.Fatalf("a sound table is refused: %v", err)
	}
	if f.entry(0) != files[0] || f.entry(1) != files[1] || w.entry(1) != watched[1] || o[0] != 1 || dir.firsts[0] != 7 {
		t.Fatalf("read back %v %v %v %v %v", f.entry(0), f.entry(1), w.entry(1), o, dir.firsts)
	}

	names := 8 + 4*recordSize + 4*len(order) // where the names start
	for name, damage := range map[string]func([]byte){
		"path out of the root": func(m []byte) { copy(m[names:], "../c.go") },
		"absolute path":        func(m []byte) { m[names] = '/' },
		"NUL inside a path":    func(m []byte) { m[names+1] = 0 },
		"no NUL after a path":  func(m []byte) { m[names+len("b/c.go")] = 'x' },
		"path past the names":  func(m []byte) { binary.LittleEndian.PutUint32(m[8:], 1<<20) },
		"long path length":     func(m []byte) { binary.LittleEndian.PutUint32(m[12:], 1<<20) },
		"order out of range":   func(m []byte) { binary.LittleEndian.PutUint32(m[8+4*recordSize:], 2) },
		"order not by path":    func(m []byte) { binary.LittleEndian.PutUint32(m[8+4*recordSize:], 0) },
		"watched not by path":  func(m []byte) { copy(m[strings.Index(string(m), ".gitignore"):], "z") },
		"watched count":        func(m []byte) { binary.LittleEndian.PutUint32(m, 3) },
		"names length":         func(m []byte) { binary.LittleEndian.PutUint32(m[4:], 1) },
	} {
		m := enc()
		damage(m)
		if _, _, _, _, err := openMeta(sealed(m)); err == nil {
			t.Errorf("%s: the table was accepted", name)
		}
	}
	h, meta = sealed(enc())
	meta[len(meta)-1] ^= 1
	if _, _, _, _, err := openMeta(h, meta); err == nil {
		t.Error("a table that does not match its checksum was accepted")
	}
}

// TestCheckBlockBoundsListLength: a lookup entry whose posting list is
// longer than its index's file count allows is refused before the list
// is read, however long the postings are.
func TestCheckBlockBoundsListLength(t *testing.T) {
	h := header{nfiles: 2, ntris: 1, postLen: 1 << 30}
	for n, ok := range map[uint32]bool{10: true, 11: false, 1 << 29: false} {
		lk := &lookupTable{}
		lk.add(7, 0, n, 0)
		lk.seal()
		err := checkBlock(h, &lookupDir{firsts: lk.firsts, crcs: lk.crcs}, 0, lk.b)
		if (err == nil) != ok {
			t.Errorf("a list of %d bytes in an index of 2 files: %v", n, err)
		}
	}
}
