package searchindex

import (
	"errors"
	"sync"
)

// When a build's runs are all in memory, they are merged before the
// index is written, by several goroutines at once, each over its own
// range of trigrams, into lists that writing the index then reads twice
// at no cost.

// merged is the merge of a build's runs, in parts of ascending trigrams.
type merged []mergedPart

type mergedPart struct {
	out  []byte   // the lists, one after another
	tris []uint32 // each list's trigram
	ends []uint32 // each list's end in out
}

func (ms merged) each(fn func(tri uint32, list []byte) error) error {
	for _, p := range ms {
		start := uint32(0)
		for i, t := range p.tris {
			if err := fn(t, p.out[start:p.ends[i]]); err != nil {
				return err
			}
			start = p.ends[i]
		}
	}
	return nil
}

// mergeInMemory merges runs held in memory in n parts at once. The parts
// split the trigrams where the bytes of the first run split evenly.
func mergeInMemory(rs runs, n int) (merged, error) {
	var total int
	for _, r := range rs {
		total += len(r.mem)
	}
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
		wg.Go(func() {
			errs[i] = parts[i].merge(rs, bounds[i], bounds[i+1], total/len(parts))
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return parts, nil
}

// merge merges the lists of the trigrams in [from, to) of rs, about size
// bytes.
func (p *mergedPart) merge(rs runs, from, to uint32, size int) error {
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
	m.out = make([]byte, 0, size+size/8)
	for {
		t, _, _, ok, err := m.next(to)
		if err != nil || !ok {
			p.out = m.out
			return err
		}
		if len(m.out) > 1<<32-1 {
			return errors.New("search index: posting lists exceed 4 GiB")
		}
		p.tris = append(p.tris, t)
		p.ends = append(p.ends, uint32(len(m.out)))
	}
}
