package searchindex

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
)

// A build holds its posting lists in memory up to spillBudget; beyond
// it, the lists so far go to a sorted run on disk (a temp file beside the
// index) and memory starts over. Writing the index merges the runs. The
// ids of one run are all below those of the next (files get ids in the
// order they are read), so merging a trigram's lists is appending them,
// with the first id of each run's list turned into a delta from the
// previous run's last.

// spillBudget is the posting bytes a build holds before it spills a
// run. Tests shrink it.
var spillBudget int64 = 256 << 20

// lists yields posting lists in ascending trigram order.
type lists interface {
	each(fn func(tri uint32, list []byte) error) error
}

// each yields the in-memory lists.
func (p *postings) each(fn func(tri uint32, list []byte) error) error {
	var scratch []byte
	for hi, blk := range p.slot {
		if blk == nil {
			continue
		}
		for lo, i := range blk {
			if i == 0 {
				continue
			}
			scratch = p.list(i, scratch[:0])
			if err := fn(uint32(hi)<<12|uint32(lo), scratch); err != nil {
				return err
			}
		}
	}
	return nil
}

// spill writes p's lists to the run file f: per trigram, ascending, the
// trigram, the last id of its list, the list's length, then the list.
func (p *postings) spill(f *os.File) error {
	w := bufio.NewWriterSize(f, 1<<20)
	var rec [12]byte
	err := p.each(func(t uint32, l []byte) error {
		last := p.lists[p.slot[t>>12][t&(1<<12-1)]-1].last
		binary.LittleEndian.PutUint32(rec[0:], t)
		binary.LittleEndian.PutUint32(rec[4:], last)
		binary.LittleEndian.PutUint32(rec[8:], uint32(len(l)))
		w.Write(rec[:])
		_, err := w.Write(l)
		return err
	})
	if err != nil {
		return err
	}
	return w.Flush()
}

// runs are the spilled runs of a build, oldest first, merged as one
// ascending sequence of lists.
type runs []*os.File

// runHead is the current record of one run.
type runHead struct {
	r    *bufio.Reader
	tri  uint32
	last uint32
	list []byte
	done bool
}

func (h *runHead) advance() error {
	var rec [12]byte
	if _, err := io.ReadFull(h.r, rec[:]); err != nil {
		if errors.Is(err, io.EOF) {
			h.done = true
			return nil
		}
		return fmt.Errorf("reading a spilled run: %w", err)
	}
	h.tri = binary.LittleEndian.Uint32(rec[0:])
	h.last = binary.LittleEndian.Uint32(rec[4:])
	n := binary.LittleEndian.Uint32(rec[8:])
	if uint32(cap(h.list)) < n {
		h.list = make([]byte, n)
	}
	h.list = h.list[:n]
	if _, err := io.ReadFull(h.r, h.list); err != nil {
		return fmt.Errorf("reading a spilled run: %w", err)
	}
	return nil
}

func (rs runs) each(fn func(tri uint32, list []byte) error) error {
	heads := make([]*runHead, len(rs))
	for i, f := range rs {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return err
		}
		heads[i] = &runHead{r: bufio.NewReaderSize(f, 256<<10)}
		if err := heads[i].advance(); err != nil {
			return err
		}
	}
	var out []byte
	for {
		t, any := uint32(0), false
		for _, h := range heads {
			if !h.done && (!any || h.tri < t) {
				t, any = h.tri, true
			}
		}
		if !any {
			return nil
		}
		out = out[:0]
		var prev uint32
		for _, h := range heads {
			if h.done || h.tri != t {
				continue
			}
			if len(out) == 0 {
				out = append(out, h.list...)
			} else {
				first, n := binary.Uvarint(h.list)
				if n <= 0 || first <= uint64(prev) {
					return errors.New("a spilled run is out of order")
				}
				out = binary.AppendUvarint(out, first-uint64(prev))
				out = append(out, h.list[n:]...)
			}
			prev = h.last
			if err := h.advance(); err != nil {
				return err
			}
		}
		if err := fn(t, out); err != nil {
			return err
		}
	}
}
