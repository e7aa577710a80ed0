package build

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/indusagi/induscode/internal/arena"
	"github.com/indusagi/induscode/internal/searchindex/indexfile"
	"github.com/indusagi/induscode/internal/walk"
	"github.com/indusagi/induscode/workspace"
)

// Limits of a build.
// coarseWindow is the racy window of a file system with whole-second
// times (see indexfile.RacyWindow).
const coarseWindow = 3 * time.Second

// BuildStats says what a build indexed.
type BuildStats struct {
	Files   int   // files in the table
	Bytes   int64 // their bytes
	Skipped int   // files whose content is not indexed: too large or unreadable
	Runs    int   // sorted runs spilled to disk and merged
	Size    int64 // bytes of the index file
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
	before, _, _ := indexfile.LstatAny(root)
	if err := workspace.MkdirAll(dir, 0o700); err != nil {
		return st, err
	}
	if after, _, _ := indexfile.LstatAny(root); after != before {
		// Creating the state folder changed the root itself: let that
		// change fall behind the racy window, or this build could not
		// vouch for the root's listing (tree.go).
		select {
		case <-time.After(2 * indexfile.RacyWindow()):
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
	start, ok := indexfile.FileStamp(tmp)
	if !ok {
		return st, fmt.Errorf("search index: cannot read the time of %s", tmp.Name())
	}
	window := indexfile.RacyWindow()
	if start.Mtime%int64(time.Second) == 0 {
		window = coarseWindow
	}
	built := start.Mtime - int64(window)
	bd := &builder{dir: dir, journal: workspace.At(root).Journal()}
	defer bd.cleanup()
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	bd.cancel = cancel
	workers := walk.Workers(0)
	bs := make([]batch, workers)
	for i := range bs {
		bs[i].ar = &bd.work
		// Files larger than this are read into the heap.
		bs[i].x.Buf = bd.work.Bytes(4 << 20)[:0]
	}
	limit := batchPairs()
	visit := func(w int, f walk.File) {
		b := &bs[w]
		rel := filepath.ToSlash(f.Path[len(root)+1:])
		data, s, ok := indexfile.ReadWalked(f, &b.x.Buf)
		var tris []uint32
		if ok && !IsBinary(data) {
			tris = b.x.Distinct(data)
		}
		if len(b.pairs) > 0 && len(b.pairs)+len(tris) > limit {
			bd.commit(b)
		}
		b.add(rel, s, len(data), tris, ok)
	}
	tree := newTreeWatch(root)
	var stats walk.Stats
	cfg := walk.Config{Root: root, Visit: visit, Workers: workers, ByName: true,
		Filter: walk.Filter{NeedRel: true, Keep: tree.keep}}
	walk.Walk(wctx, cfg, &stats)
	if err := ctx.Err(); err != nil {
		return st, err
	}
	var wg sync.WaitGroup
	for i := range bs {
		wg.Go(func() { bd.commit(&bs[i]) })
	}
	wg.Wait()
	// The workers' buffers are done with: the merge takes their arena,
	// and writing the index the heap they left, whose pages are
	// touched already.
	bs = nil
	bd.work.Reset()
	runtime.GC()
	if bd.err != nil {
		return st, fmt.Errorf("search index: spilling posting lists to disk: %w", bd.err)
	}
	files := bd.files
	st.Bytes, st.Skipped = bd.bytes, bd.skipped
	st.Files = len(files) - st.Skipped
	st.Skipped += int(stats.Unreadable())
	h := indexfile.Header{Built: built, NFiles: uint32(len(files))}
	watched, complete := tree.finish(stats.Unreadable() == 0)
	if complete {
		h.Flags |= indexfile.FlagComplete
	}
	var src lists = append(bd.spilled[:len(bd.spilled):len(bd.spilled)], bd.mem...)
	var scratch func(n int) []byte
	if len(bd.spilled) == 0 {
		// In memory, the merge takes as much again as the runs:
		// within twice the budget.
		if src, err = mergeInMemory(bd.mem, workers, &bd.work); err != nil {
			return st, fmt.Errorf("search index: merging posting lists: %w", err)
		}
		// The runs are merged: the pages they held, touched already,
		// take the lookup table and the file table.
		bd.mem = nil
		bd.runs.Reset()
		scratch = bd.runs.Bytes
	}
	st.Runs = len(bd.spilled)
	st.Size, err = write(tmp, h, files, watched, src, scratch)
	if err == nil {
		err = workspace.Rename(tmp.Name(), filepath.Join(dir, indexfile.FileName))
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

func IsBinary(data []byte) bool {
	return bytes.IndexByte(data[:min(len(data), BinaryWindow)], 0) >= 0
}

// readFile reads the regular file at path as readWalked does; a link in
// its place is not followed.
func ReadFile(path string, buf *[]byte) ([]byte, indexfile.Stamp, bool) {
	return indexfile.ReadWalked(walk.ListedFile(path), buf)
}

// builder is what a build's workers share, under mu.
type builder struct {
	dir     string // the index folder, where spilled runs go
	journal workspace.Journal
	cancel  func() // stops the walk after an error

	mu       sync.Mutex
	files    []indexfile.Entry // the table: a file's id is its place
	bytes    int64             // of the indexed files
	skipped  int               // files whose content is not indexed
	spilled  runs              // on disk, oldest first
	mem      runs              // in memory, after the spilled ones
	memBytes int64
	forget   []func() // of the spilled runs' journal records
	err      error

	work arena.Arena // the workers' buffers, then the merged lists
	runs arena.Arena // of the runs in memory
}

// commit hands batch b to the build and empties it: its files get the
// next ids in the table and its run joins the others. The run is sorted
// and encoded before the lock is taken.
func (bd *builder) commit(b *batch) {
	var enc []byte
	if len(b.pairs) > 0 {
		enc = b.run()
	}
	bd.mu.Lock()
	defer bd.mu.Unlock()
	base := uint32(len(bd.files))
	bd.files = append(bd.files, b.files...)
	bd.bytes += b.bytes
	bd.skipped += b.skipped
	b.reset()
	if len(enc) == 0 || bd.err != nil {
		return
	}
	// Copied under the lock: a spill takes back the runs' arena.
	kept := bd.runs.Bytes(len(enc))[:len(enc)]
	copy(kept, enc)
	bd.mem = append(bd.mem, run{mem: kept, base: base})
	bd.memBytes += int64(len(enc))
	if bd.memBytes > spillBudget {
		if bd.err = bd.spill(); bd.err != nil {
			bd.cancel()
		}
	}
}

// spill merges the runs in memory into one on disk.
func (bd *builder) spill() error {
	f, err := workspace.CreateTemp(bd.dir)
	if err != nil {
		return err
	}
	bd.forget = append(bd.forget, bd.journal.Record(f.Name()))
	bd.spilled = append(bd.spilled, run{file: f})
	if err := bd.mem.spill(f); err != nil {
		return err
	}
	bd.mem, bd.memBytes = nil, 0
	bd.runs.Reset()
	return nil
}

// cleanup removes the spilled runs and frees the arenas.
func (bd *builder) cleanup() {
	bd.work.Free()
	bd.runs.Free()
	for i, r := range bd.spilled {
		r.file.Close()
		_ = workspace.Remove(r.file.Name())
		bd.forget[i]()
	}
}

// write writes the index into the temp file tmp and closes it. It reads
// the lists twice: once for the lookup table, which precedes them, once
// to write them. It does not sync the file before it takes the index's
// place: the index is a cache, every part of it is checked (lengths
// against the file's size, checksums), and a file a crash left short or
// torn is refused, so grep scans until the next build replaces it.
func write(tmp *os.File, h indexfile.Header, files []indexfile.Entry, watched []indexfile.Entry, src lists, scratch func(n int) []byte) (int64, error) {
	if scratch == nil {
		scratch = func(n int) []byte { return make([]byte, n) }
	}
	// The files' path order is sorted while the lists are read.
	order := make([]uint32, len(files))
	sorted := make(chan struct{})
	go func() {
		defer close(sorted)
		for i := range order {
			order[i] = uint32(i)
		}
		slices.SortFunc(order, func(a, b uint32) int { return strings.Compare(files[a].Path, files[b].Path) })
	}()
	defer func() { <-sorted }()
	lk := &indexfile.LookupTable{}
	if c, ok := src.(interface{ count() int }); ok {
		lk.B = scratch(c.count() * indexfile.LookupSize)[:0]
	}
	var off uint64
	add := func(t uint32, n int, crc uint32) error {
		lk.Add(t, uint32(off), uint32(n), crc)
		off += uint64(n)
		if off > 1<<32-1 {
			return errors.New("search index: posting lists exceed 4 GiB")
		}
		return nil
	}
	var err error
	if ms, ok := src.(merged); ok {
		err = ms.eachSum(add) // checksummed by the merge
	} else {
		err = src.each(func(t uint32, l []byte) error { return add(t, len(l), crc32.Checksum(l, indexfile.Castagnoli())) })
	}
	if err != nil {
		return 0, err
	}
	lk.Seal()
	<-sorted
	if n := indexfile.MetaLenOf(uint32(len(files)), uint32(len(watched)), 0, uint32(len(lk.B)/indexfile.LookupSize)); n > indexfile.MaxMetaLen {
		return 0, fmt.Errorf("search index: a file table of %d files is larger than an index holds", len(files))
	}
	meta := indexfile.EncodeMeta(files, order, watched, lk, scratch)
	h.NTris = uint32(len(lk.B) / indexfile.LookupSize)
	h.MetaLen, h.PostLen = uint64(len(meta)), off
	if h.MetaLen > indexfile.MaxMetaLen {
		return 0, fmt.Errorf("search index: the paths of %d files are longer than an index holds", len(files))
	}
	h.MetaCRC = crc32.Checksum(meta, indexfile.Castagnoli())
	h.NWatched = uint32(len(watched))
	h.NNames = binary.LittleEndian.Uint32(meta[4:])

	w := bufio.NewWriterSize(tmp, 1<<20)
	w.Write(h.Encode())
	w.Write(meta)
	w.Write(lk.B)
	var written uint64
	put := func(b []byte) error {
		written += uint64(len(b))
		_, err := w.Write(b)
		return err
	}
	if ms, ok := src.(merged); ok {
		err = ms.eachChunk(put)
	} else {
		err = src.each(func(_ uint32, l []byte) error { return put(l) })
	}
	if err != nil {
		return 0, err
	}
	if written != off {
		return 0, errors.New("search index: posting lists changed between passes")
	}
	if err := w.Flush(); err != nil {
		return 0, err
	}
	if err := tmp.Close(); err != nil {
		return 0, err
	}
	return h.PostAt() + int64(off), nil
}

// SetSpillBudget makes builds spill their posting lists beyond n bytes,
// for tests; the returned function restores the budget.
func SetSpillBudget(n int64) (restore func()) {
	old := spillBudget
	spillBudget = n
	return func() { spillBudget = old }
}

// SetBatchPairs makes a build's workers hand over their files every n
// trigram-file pairs, for tests; the returned function restores the size.
func SetBatchPairs(n int) (restore func()) {
	old := maxBatchPairs
	maxBatchPairs = n
	return func() { maxBatchPairs = old }
}
