package build

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
)

// A build's posting lists come in sorted runs, one per batch (batch.go):
// per trigram, ascending, as uvarints the trigram's difference from the
// previous record's, the last id of its list and the list's length, then
// the list. A run's ids are the
// places of its files in the batch; the run's base, the id of the batch's
// first file, is added when it is read. Each batch gets the next ids, so
// merging the runs, in the order of their bases, is appending each
// trigram's lists, with the first id of each list turned into a delta
// from the previous one's last.
//
// The runs stay in memory up to spillBudget bytes; beyond it, those in
// memory are merged into one run in a temp file beside the index, so a
// build's memory is bounded whatever the tree holds.

// spillBudget is the run bytes a build holds in memory before it spills
// them to disk. Tests shrink it.
var spillBudget int64 = 256 << 20

// lists yields posting lists in ascending trigram order.
type lists interface {
	each(fn func(tri uint32, list []byte) error) error
}

// run is one sorted run, in memory (mem) or spilled to a file.
type run struct {
	mem  []byte
	file *os.File
	base uint32 // added to every id
}

// runs are the runs of a build in the order of their bases.
type runs []run

// runHead is the current record of one run.
type runHead struct {
	r    *bufio.Reader // of a spilled run
	mem  []byte        // the rest of a run in memory
	base uint32
	tri  uint32
	last uint32 // with base added
	list []byte
	done bool
}

var errRunCut = errors.New("a run of the build is cut short")

func (h *runHead) uvarint() uint64 {
	if h.r != nil {
		v, err := binary.ReadUvarint(h.r)
		if err != nil {
			return 1 << 63
		}
		return v
	}
	if len(h.mem) > 0 && h.mem[0] < 0x80 {
		v := h.mem[0]
		h.mem = h.mem[1:]
		return uint64(v)
	}
	v, n := binary.Uvarint(h.mem)
	if n <= 0 {
		return 1 << 63
	}
	h.mem = h.mem[n:]
	return v
}

func (h *runHead) advance() error {
	if h.r == nil && len(h.mem) == 0 {
		h.done = true
		return nil
	}
	if h.r != nil {
		if _, err := h.r.Peek(1); err == io.EOF {
			h.done = true
			return nil
		}
	}
	dt, last, n := h.uvarint(), h.uvarint(), h.uvarint()
	if dt >= 1<<24 || last >= 1<<32 || n >= 1<<32 {
		return errRunCut
	}
	h.tri += uint32(dt)
	h.last = uint32(last) + h.base
	if h.r == nil {
		if uint64(len(h.mem)) < n {
			return errRunCut
		}
		h.list, h.mem = h.mem[:n], h.mem[n:]
		return nil
	}
	if uint64(cap(h.list)) < n {
		h.list = make([]byte, n)
	}
	h.list = h.list[:n]
	if _, err := io.ReadFull(h.r, h.list); err != nil {
		return fmt.Errorf("reading a spilled run: %w", err)
	}
	return nil
}

func (rs runs) each(fn func(tri uint32, list []byte) error) error {
	return rs.merge(func(tri, _ uint32, list []byte) error { return fn(tri, list) })
}

// merge yields each trigram's merged list, with the last id in it.
func (rs runs) merge(fn func(tri, last uint32, list []byte) error) error {
	m, err := rs.open()
	if err != nil {
		return err
	}
	for {
		t, _, ok := m.min(1 << 24)
		if !ok {
			return nil
		}
		m.out = m.out[:0]
		last, list, err := m.take(t)
		if err != nil {
			return err
		}
		if err := fn(t, last, list); err != nil {
			return err
		}
	}
}

// open starts a merge of rs at their first records.
func (rs runs) open() (*merger, error) {
	m := &merger{heads: make([]*runHead, len(rs))}
	for i, r := range rs {
		h := &runHead{mem: r.mem, base: r.base}
		if r.file != nil {
			if _, err := r.file.Seek(0, io.SeekStart); err != nil {
				return nil, err
			}
			h.r = bufio.NewReaderSize(r.file, 256<<10)
		}
		if err := h.advance(); err != nil {
			return nil, err
		}
		m.heads[i] = h
	}
	return m, nil
}

// merger merges runs one trigram at a time.
type merger struct {
	heads []*runHead
	out   []byte // the merged lists are appended to it
}

// min returns the least trigram below end in the runs, and how many
// bytes at most its merged list takes; ok is false when there is none.
func (m *merger) min(end uint32) (tri uint32, size int, ok bool) {
	t := end
	for _, h := range m.heads {
		if !h.done && h.tri <= t {
			if h.tri < t {
				t, size = h.tri, 0
			}
			// A list's first id, made a delta from the previous
			// run's last, may take up to four bytes more.
			size += len(h.list) + 4
		}
	}
	return t, size, t < end
}

// take appends the merged list of trigram t, the least in the runs, to
// m.out and returns it, with its last id.
func (m *merger) take(t uint32) (last uint32, list []byte, err error) {
	start := len(m.out)
	out := m.out
	var prev uint32
	for _, h := range m.heads {
		if h.done || h.tri != t {
			continue
		}
		first, n := binary.Uvarint(h.list)
		if n <= 0 || first+uint64(h.base) > 1<<32-1 {
			return 0, nil, errors.New("a run holds a bad posting list")
		}
		first += uint64(h.base)
		if len(out) > start {
			if first <= uint64(prev) {
				return 0, nil, errors.New("the runs of a build are out of order")
			}
			first -= uint64(prev)
		}
		out = binary.AppendUvarint(out, first)
		out = append(out, h.list[n:]...)
		prev = h.last
		if err := h.advance(); err != nil {
			return 0, nil, err
		}
	}
	m.out = out
	return prev, out[start:], nil
}

// spill merges rs into one run written to f, with base 0.
func (rs runs) spill(f *os.File) error {
	w := bufio.NewWriterSize(f, 1<<20)
	var rec []byte
	var prev uint32
	err := rs.merge(func(t, last uint32, l []byte) error {
		rec = binary.AppendUvarint(rec[:0], uint64(t-prev))
		rec = binary.AppendUvarint(rec, uint64(last))
		rec = binary.AppendUvarint(rec, uint64(len(l)))
		prev = t
		w.Write(rec)
		_, err := w.Write(l)
		return err
	})
	if err != nil {
		return err
	}
	return w.Flush()
}
