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
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/indusagi/induscode/internal/walk"
	"github.com/indusagi/induscode/workspace"
)

// Limits of a build.
const (
	// MaxFileSize is the largest file indexed. The content of larger
	// files is not indexed, so grep always scans them (and says what it
	// says about them: long lines, multiline limits).
	MaxFileSize = 16 << 20
)

// The racy rule. A file's stamp proves it unchanged only if any later
// change must move its times; a change within the file system's timestamp
// granularity of the moment it was read may not. So the build takes the
// file system's own clock at its start (the times of its new temp file, so
// a server's clock skew does not matter), and an entry whose modification
// or change time is within racyWindow of it, or after it, is never
// trusted. File systems with nanosecond times advance them at least every
// scheduler tick (at most 10 ms); those with whole-second times (FAT has
// two seconds) get coarseWindow. Tests shorten racyWindow.
var racyWindow = 100 * time.Millisecond

const coarseWindow = 3 * time.Second

// BuildStats says what a build indexed.
type BuildStats struct {
	Files   int   // files in the table
	Bytes   int64 // their bytes
	Skipped int   // files whose content is not indexed: too large or unreadable
	Runs    int   // sorted runs spilled to disk and merged
	Size    int64 // bytes of the index file
}

// postings accumulates the lists of a build: for each trigram, the ids
// of the files holding it as uvarint deltas. A list is a chain of chunks
// carved from large slabs, each chunk twice the last up to maxChunkClass, so
// that appending allocates nothing per list and copies nothing.
type postings struct {
	slot  [1 << 12]*[1 << 12]int32 // trigram -> index+1 in lists
	lists []plist
	slabs [][]byte
	bytes int64 // slab bytes in use
}

// Chunks: class c holds chunkPayload<<c bytes of list, then the address
// of the next chunk (4 bytes). An address is slab<<slabBits | offset.
const (
	slabBits      = 20
	chunkPayload  = 12
	maxChunkClass = 4
)

type plist struct {
	head, tail uint32 // chunk addresses
	class      uint8  // of the tail chunk
	n          uint16 // bytes used in the tail chunk
	size       uint32 // bytes of the whole list
	last       uint32 // the last file id added
}

func chunkCap(class uint8) int { return chunkPayload<<class + 4 }

// chunk returns a new chunk of class c and its address.
func (p *postings) chunk(c uint8) uint32 {
	size := chunkCap(c)
	if len(p.slabs) == 0 || len(p.slabs[len(p.slabs)-1])+size > 1<<slabBits {
		p.slabs = append(p.slabs, make([]byte, 0, 1<<slabBits))
	}
	k := len(p.slabs) - 1
	off := len(p.slabs[k])
	p.slabs[k] = p.slabs[k][:off+size]
	p.bytes += int64(size)
	return uint32(k)<<slabBits | uint32(off)
}

func (p *postings) at(addr uint32, size int) []byte {
	off := int(addr & (1<<slabBits - 1))
	return p.slabs[addr>>slabBits][off : off+size]
}

func (p *postings) add(id uint32, tris []uint32) {
	var vb [binary.MaxVarintLen32]byte
	for _, t := range tris {
		blk := p.slot[t>>12]
		if blk == nil {
			blk = new([1 << 12]int32)
			p.slot[t>>12] = blk
		}
		i := blk[t&(1<<12-1)]
		var v []byte
		if i == 0 {
			a := p.chunk(0)
			p.lists = append(p.lists, plist{head: a, tail: a})
			i = int32(len(p.lists))
			blk[t&(1<<12-1)] = i
			v = binary.AppendUvarint(vb[:0], uint64(id))
		} else {
			v = binary.AppendUvarint(vb[:0], uint64(id-p.lists[i-1].last))
		}
		l := &p.lists[i-1]
		l.last = id
		l.size += uint32(len(v))
		for _, b := range v {
			payload := chunkCap(l.class) - 4
			if int(l.n) == payload {
				c := min(l.class+1, maxChunkClass)
				a := p.chunk(c)
				binary.LittleEndian.PutUint32(p.at(l.tail, chunkCap(l.class))[payload:], a)
				l.tail, l.class, l.n = a, c, 0
			}
			p.at(l.tail, chunkCap(l.class))[l.n] = b
			l.n++
		}
	}
}

// list appends list i's bytes to buf.
func (p *postings) list(i int32, buf []byte) []byte {
	l := &p.lists[i-1]
	a, c := l.head, uint8(0)
	for {
		ch := p.at(a, chunkCap(c))
		payload := len(ch) - 4
		if a == l.tail {
			return append(buf, ch[:l.n]...)
		}
		buf = append(buf, ch[:payload]...)
		a, c = binary.LittleEndian.Uint32(ch[payload:]), min(c+1, maxChunkClass)
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
// atomically. It holds the posting lists in memory up to spillBudget and
// spills them to disk beyond (spill.go).
func Build(ctx context.Context, root string) (BuildStats, error) {
	var st BuildStats
	root, err := filepath.Abs(root)
	if err != nil {
		return st, err
	}
	dir := workspace.At(root).SearchIndex()
	before, _, _ := lstatAny(root)
	if err := workspace.MkdirAll(dir, 0o700); err != nil {
		return st, err
	}
	if after, _, _ := lstatAny(root); after != before {
		// Creating the state folder changed the root itself: let that
		// change fall behind the racy window, or this build could not
		// vouch for the root's listing (tree.go).
		select {
		case <-time.After(2 * racyWindow):
		case <-ctx.Done():
			return st, ctx.Err()
		}
	}
	tmp, err := workspace.CreateTemp(dir)
	if err != nil {
		return st, err
	}
	forget := workspace.At(root).Journal().Record(tmp.Name())
	defer forget()
	done := false
	defer func() {
		if !done {
			tmp.Close()
			_ = workspace.Remove(tmp.Name())
		}
	}()
	start, ok := fileStamp(tmp)
	if !ok {
		return st, fmt.Errorf("search index: cannot read the time of %s", tmp.Name())
	}
	window := racyWindow
	if start.mtime%int64(time.Second) == 0 {
		window = coarseWindow
	}
	built := start.mtime - int64(window)
	var (
		mu       sync.Mutex
		post     = &postings{}
		files    []entry
		stats    walk.Stats
		spilled  runs
		spillErr error
	)
	var forgetRuns []func()
	defer func() {
		for i, f := range spilled {
			f.Close()
			_ = workspace.Remove(f.Name())
			forgetRuns[i]()
		}
	}()
	// spillRun moves the lists in memory to a run on disk (spill.go).
	spillRun := func() error {
		f, err := workspace.CreateTemp(dir)
		if err != nil {
			return err
		}
		forgetRuns = append(forgetRuns, workspace.At(root).Journal().Record(f.Name()))
		spilled = append(spilled, f)
		if err := post.spill(f); err != nil {
			return err
		}
		post = &postings{}
		return nil
	}
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
		rel := filepath.ToSlash(path[len(root)+1:])
		if !ok {
			// In the table all the same, so that the table lists every
			// file the walk admits, but never vouched for: grep scans it.
			st.Skipped++
			files = append(files, entry{path: rel, stamp: stamp{size: unindexed}})
			return
		}
		id := uint32(len(files))
		files = append(files, entry{path: rel, stamp: s})
		post.add(id, tris)
		st.Bytes += int64(len(data))
		if post.bytes > spillBudget && spillErr == nil {
			spillErr = spillRun()
		}
	}
	tree := newTreeWatch(root)
	cfg := walk.Config{Root: root, Visit: visit, Workers: workers,
		Filter: walk.Filter{NeedRel: true, Keep: tree.keep}}
	walk.Walk(ctx, cfg, &stats)
	if err := ctx.Err(); err != nil {
		return st, err
	}
	st.Files = len(files) - st.Skipped
	st.Skipped += int(stats.Unreadable())
	h := header{built: built, nfiles: uint32(len(files))}
	watched, complete := tree.finish(stats.Unreadable() == 0)
	if complete {
		h.flags |= flagComplete
	}
	var src lists = post
	if spillErr == nil && len(spilled) > 0 {
		spillErr = spillRun()
		src = spilled
	}
	if spillErr != nil {
		return st, fmt.Errorf("search index: spilling posting lists to disk: %w", spillErr)
	}
	st.Runs = len(spilled)
	st.Size, err = write(tmp, h, files, watched, src)
	if err == nil {
		err = workspace.Rename(tmp.Name(), filepath.Join(dir, FileName))
	}
	if err != nil {
		return st, fmt.Errorf("writing the search index: %w", err)
	}
	done = true
	return st, nil
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

// write writes the index into the temp file tmp and closes it. It reads
// the lists twice: once for the lookup table, which precedes them, once
// to write them.
func write(tmp *os.File, h header, files []entry, watched []entry, src lists) (int64, error) {
	order := make([]uint32, len(files))
	for i := range order {
		order[i] = uint32(i)
	}
	slices.SortFunc(order, func(a, b uint32) int { return cmp.Compare(files[a].path, files[b].path) })
	lk := &lookupTable{}
	var off uint64
	err := src.each(func(t uint32, l []byte) error {
		lk.add(t, uint32(off), uint32(len(l)), crc32.Checksum(l, castagnoli))
		off += uint64(len(l))
		if off > 1<<32-1 {
			return errors.New("search index: posting lists exceed 4 GiB")
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	lk.seal()
	meta := encodeMeta(files, order, watched, lk)
	h.ntris = uint32(len(lk.b) / lookupSize)
	h.metaLen, h.postLen = uint64(len(meta)), off
	h.metaCRC = crc32.Checksum(meta, castagnoli)

	w := bufio.NewWriterSize(tmp, 1<<20)
	w.Write(h.encode())
	w.Write(meta)
	w.Write(lk.b)
	var written uint64
	err = src.each(func(_ uint32, l []byte) error {
		written += uint64(len(l))
		_, err := w.Write(l)
		return err
	})
	if err != nil {
		return 0, err
	}
	if written != off {
		return 0, errors.New("search index: posting lists changed between passes")
	}
	if err := w.Flush(); err != nil {
		return 0, err
	}
	if err := tmp.Sync(); err != nil {
		return 0, err
	}
	if err := tmp.Close(); err != nil {
		return 0, err
	}
	return h.postAt() + int64(off), nil
}
