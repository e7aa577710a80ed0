package searchindex

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/indusagi/induscode/internal/walk"
	"github.com/indusagi/induscode/workspace"
)

// Limits of a build.
const (
	// MaxFileSize is the largest file indexed. Larger files are not in
	// the table, so grep always scans them (and says what it says about
	// them: long lines, multiline limits).
	MaxFileSize = 16 << 20
	// MemoryBudget bounds the posting lists a build holds. A tree whose
	// lists outgrow it is indexed in part: the files beyond are left out
	// of the table, and grep scans them.
	MemoryBudget = 1 << 30
)

// racyWindow is how close to the start of a build a file's change time
// may be before its entry is not trusted: a file changed within the file
// system's timestamp granularity of being read could change again without
// its times moving. Two seconds covers the coarsest file systems. Tests
// shorten it.
var racyWindow = 2 * time.Second

// BuildStats says what a build indexed.
type BuildStats struct {
	Files   int   // files in the table
	Bytes   int64 // their bytes
	Skipped int   // files left out: too large, unreadable or over the memory budget
	Size    int64 // bytes of the index file
}

// postings accumulates the lists of a build: for each trigram, the ids
// of the files holding it as uvarint deltas.
type postings struct {
	slot  [1 << 12]*[1 << 12]int32 // trigram -> index+1 in lists
	lists []plist
	bytes int64
}

type plist struct {
	data []byte
	last uint32
}

func (p *postings) add(id uint32, tris []uint32) {
	for _, t := range tris {
		blk := p.slot[t>>12]
		if blk == nil {
			blk = new([1 << 12]int32)
			p.slot[t>>12] = blk
		}
		i := blk[t&(1<<12-1)]
		if i == 0 {
			p.lists = append(p.lists, plist{})
			i = int32(len(p.lists))
			blk[t&(1<<12-1)] = i
			l := &p.lists[i-1]
			l.data = binary.AppendUvarint(l.data, uint64(id))
			l.last = id
			p.bytes += int64(len(l.data)) + 32
			continue
		}
		l := &p.lists[i-1]
		n := len(l.data)
		l.data = binary.AppendUvarint(l.data, uint64(id-l.last))
		l.last = id
		p.bytes += int64(len(l.data) - n)
	}
}

// extractor finds the distinct trigrams of one file; each worker owns one.
type extractor struct {
	seen []uint64 // bit per trigram
	tris []uint32
	buf  []byte
}

func (x *extractor) distinct(data []byte) []uint32 {
	if x.seen == nil {
		x.seen = make([]uint64, 1<<24/64)
	}
	x.tris = x.tris[:0]
	for i := 0; i+2 < len(data); i++ {
		t := uint32(data[i])<<16 | uint32(data[i+1])<<8 | uint32(data[i+2])
		if x.seen[t>>6]&(1<<(t&63)) == 0 {
			x.seen[t>>6] |= 1 << (t & 63)
			x.tris = append(x.tris, t)
		}
	}
	for _, t := range x.tris {
		x.seen[t>>6] = 0
	}
	return x.tris
}

// Build indexes the files under root that grep would search there (the
// walk's ignore rules, no state folder) and replaces the index file
// atomically. It holds the posting lists in memory up to MemoryBudget.
func Build(ctx context.Context, root string) (BuildStats, error) {
	var st BuildStats
	root, err := filepath.Abs(root)
	if err != nil {
		return st, err
	}
	built := time.Now().Add(-racyWindow).UnixNano()
	var (
		mu    sync.Mutex
		post  = &postings{}
		files []entry
		stats walk.Stats
	)
	workers := walk.Workers(0)
	xs := make([]extractor, workers)
	visit := func(w int, f walk.File) {
		path := f.Path
		x := &xs[w]
		data, s, ok := readFile(path, &x.buf)
		var tris []uint32
		if ok && !isBinary(data) {
			tris = x.distinct(data)
		}
		mu.Lock()
		defer mu.Unlock()
		if !ok || post.bytes > MemoryBudget {
			st.Skipped++
			return
		}
		id := uint32(len(files))
		files = append(files, entry{path: filepath.ToSlash(path[len(root)+1:]), stamp: s})
		post.add(id, tris)
		st.Bytes += int64(len(data))
	}
	walk.Walk(ctx, walk.Config{Root: root, Visit: visit, Workers: workers}, &stats)
	if err := ctx.Err(); err != nil {
		return st, err
	}
	st.Files = len(files)
	st.Skipped += int(stats.Unreadable())
	st.Size, err = write(root, header{built: built, nfiles: uint32(len(files))}, files, post)
	return st, err
}

// BinaryWindow is how far into a file a NUL byte makes it binary for the
// index. grep reads at least this much before it searches a line, and
// skips a file with a NUL there without showing anything, so a binary
// file gets no trigrams: no query that needs one selects it.
const BinaryWindow = 64 << 10

func isBinary(data []byte) bool {
	return bytes.IndexByte(data[:min(len(data), BinaryWindow)], 0) >= 0
}

// readFile reads a whole regular file no larger than MaxFileSize, with
// the stamp taken before the read: a change during the read moves the
// file's times past the stamp.
func readFile(path string, buf *[]byte) ([]byte, stamp, bool) {
	f, err := openNoFollow(path)
	if err != nil {
		return nil, stamp{}, false
	}
	defer f.Close()
	s, ok := fileStamp(f)
	if !ok || s.size > MaxFileSize {
		return nil, s, false
	}
	if int64(cap(*buf)) < s.size+1 {
		*buf = make([]byte, s.size+1)
	}
	b := (*buf)[:cap(*buf)]
	n, err := io.ReadFull(f, b[:s.size+1])
	if err != io.ErrUnexpectedEOF && err != io.EOF {
		return nil, s, false // grew past its stamp, or failed
	}
	if int64(n) != s.size {
		return nil, s, false
	}
	return b[:n], s, true
}

// write writes the index file through a temp file in the index folder
// and renames it into place.
func write(root string, h header, files []entry, post *postings) (int64, error) {
	order := make([]uint32, len(files))
	for i := range order {
		order[i] = uint32(i)
	}
	slices.SortFunc(order, func(a, b uint32) int { return cmp.Compare(files[a].path, files[b].path) })
	lk := &lookup{}
	var off uint64
	for hi, blk := range post.slot {
		if blk == nil {
			continue
		}
		for lo, i := range blk {
			if i == 0 {
				continue
			}
			l := post.lists[i-1].data
			lk.tris = append(lk.tris, uint32(hi)<<12|uint32(lo))
			lk.offs = append(lk.offs, uint32(off))
			lk.lens = append(lk.lens, uint32(len(l)))
			lk.crcs = append(lk.crcs, crc32.Checksum(l, castagnoli))
			off += uint64(len(l))
		}
	}
	if off > 1<<32-1 {
		return 0, errors.New("search index: posting lists exceed 4 GiB")
	}
	meta := encodeMeta(files, order, lk)
	h.ntris = uint32(len(lk.tris))
	h.metaLen, h.postLen = uint64(len(meta)), off
	h.metaCRC = crc32.Checksum(meta, castagnoli)

	dir := workspace.At(root).SearchIndex()
	if err := workspace.MkdirAll(dir, 0o700); err != nil {
		return 0, err
	}
	tmp, err := workspace.CreateTemp(dir)
	if err != nil {
		return 0, err
	}
	forget := workspace.At(root).Journal().Record(tmp.Name())
	defer forget()
	fail := func(err error) (int64, error) {
		tmp.Close()
		_ = workspace.Remove(tmp.Name())
		return 0, fmt.Errorf("writing the search index: %w", err)
	}
	w := bufio.NewWriterSize(tmp, 1<<20)
	w.Write(h.encode())
	w.Write(meta)
	for _, t := range lk.tris {
		w.Write(post.lists[post.slot[t>>12][t&(1<<12-1)]-1].data)
	}
	if err := w.Flush(); err != nil {
		return fail(err)
	}
	if err := tmp.Sync(); err != nil {
		return fail(err)
	}
	if err := tmp.Close(); err != nil {
		return fail(err)
	}
	if err := workspace.Rename(tmp.Name(), filepath.Join(dir, FileName)); err != nil {
		_ = workspace.Remove(tmp.Name())
		return 0, fmt.Errorf("writing the search index: %w", err)
	}
	return int64(headerSize) + int64(len(meta)) + int64(off), nil
}
