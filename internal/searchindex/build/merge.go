package build

import (
	"hash/crc32"
	"sync"

	"github.com/indusagi/induscode/internal/arena"
	"github.com/indusagi/induscode/internal/searchindex/indexfile"
)

// When a build's runs are all in memory, they are merged before the
// index is written, by several goroutines at once, each over its own
// range of trigrams, into lists that writing the index then reads twice
// at no cost. Each part also checksums its lists, so that the serial
// writing of the lookup table only adds up lengths.

// merged is the merge of a build's runs, in parts of ascending trigrams.
type merged []mergedPart

// mergedPart is the lists of one range of trigrams, in chunks of about
// mergeChunk bytes taken from the arena the workers' buffers were in.
type mergedPart []mergedChunk

const mergeChunk = 1 << 20

type mergedChunk struct {
	out  []byte   // the lists, one after another
	tris []uint32 // each list's trigram
	ends []uint32 // each list's end in out
	crcs []uint32 // each list's checksum
}

func (ms merged) each(fn func(tri uint32, list []byte) error) error {
	for _, p := range ms {
		for _, c := range p {
			start := uint32(0)
			for i, t := range c.tris {
				if err := fn(t, c.out[start:c.ends[i]]); err != nil {
					return err
				}
				start = c.ends[i]
			}
		}
	}
	return nil
}

// eachSum yields each list's trigram, length and checksum, in order.
func (ms merged) eachSum(fn func(tri uint32, n int, crc uint32) error) error {
	for _, p := range ms {
		for _, c := range p {
			start := uint32(0)
			for i, t := range c.tris {
				if err := fn(t, int(c.ends[i]-start), c.crcs[i]); err != nil {
					return err
				}
				start = c.ends[i]
			}
		}
	}
	return nil
}

// eachChunk yields the lists' bytes a chunk at a time, in order.
func (ms merged) eachChunk(fn func(b []byte) error) error {
	for _, p := range ms {
		for _, c := range p {
			if err := fn(c.out); err != nil {
				return err
			}
		}
	}
	return nil
}

// count is the number of lists.
func (ms merged) count() int {
	n := 0
	for _, p := range ms {
		for _, c := range p {
			n += len(c.tris)
		}
	}
	return n
}

// mergeInMemory merges runs held in memory in n parts at once. The parts
// split the trigrams where the bytes of the first run split evenly.
func mergeInMemory(rs runs, n int, ar *arena.Arena) (merged, error) {
	bounds := make([]uint32, 0, n+1)
	bounds = append(bounds, 0)
	if len(rs) > 0 {
		h := &runHead{mem: rs[0].mem}
		size := len(h.mem)
		for k := 1; k < n; k++ {
			for !h.done && len(h.mem) > size-size*k/n {
				if err := h.advance(); err != nil {
					return nil, err
				}
			}
			if !h.done && h.tri > bounds[len(bounds)-1] {
				bounds = append(bounds, h.tri)
			}
		}
	}
	bounds = append(bounds, 1<<24)
	parts := make(merged, len(bounds)-1)
	errs := make([]error, len(parts))
	var wg sync.WaitGroup
	for i := range parts {
		wg.Go(func() { errs[i] = parts[i].merge(rs, bounds[i], bounds[i+1], ar) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return parts, nil
}

// merge merges the lists of the trigrams in [from, to) of rs, into
// chunks of ar.
func (p *mergedPart) merge(rs runs, from, to uint32, ar *arena.Arena) error {
	m, err := rs.open()
	if err != nil {
		return err
	}
	for _, h := range m.heads {
		for !h.done && h.tri < from {
			if err := h.advance(); err != nil {
				return err
			}
		}
	}
	var c *mergedChunk
	for {
		t, size, ok := m.min(to)
		if !ok {
			return nil
		}
		if c == nil || cap(c.out)-len(c.out) < size {
			*p = append(*p, mergedChunk{out: ar.Bytes(max(mergeChunk, size))[:0]})
			c = &(*p)[len(*p)-1]
		}
		m.out = c.out
		start := len(c.out)
		if _, _, err := m.take(t); err != nil {
			return err
		}
		c.out = m.out
		c.tris = append(c.tris, t)
		c.ends = append(c.ends, uint32(len(c.out)))
		c.crcs = append(c.crcs, crc32.Checksum(c.out[start:], indexfile.Castagnoli()))
	}
}
