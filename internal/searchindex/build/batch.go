package build

import (
	"encoding/binary"
	"math/bits"
	"slices"

	"github.com/indusagi/induscode/internal/arena"
	"github.com/indusagi/induscode/internal/searchindex/indexfile"
)

// A build's workers share nothing per file. Each fills a batch: the files
// it read, in order, and one pair (trigram<<32 | the file's place in the
// batch) per distinct trigram of each file. A full batch is sorted by
// trigram and encoded as one run of posting lists (spill.go) before the
// build takes its lock, only to give the batch's files the next ids in
// the table and to keep the run.

// maxBatchPairs bounds a batch: enough pairs that a build makes few runs
// to merge, few enough that a worker's two buffers of them stay small
// (every page a build touches first costs it a fault). Tests shrink it.
var maxBatchPairs = 1 << 20

// batchPairs is the pairs a batch holds before it is handed over, less
// when a small spill budget asks for it.
func batchPairs() int { return int(min(int64(maxBatchPairs), max(1, spillBudget/8))) }

// batch is one worker's files and pairs not yet handed to the build.
type batch struct {
	ar      *arena.Arena // of the buffers
	files   []indexfile.Entry
	pairs   []uint64
	scratch []uint64 // the sort's second buffer
	enc     []byte   // the run being encoded
	bytes   int64    // of the indexed files
	skipped int      // files whose content is not indexed
	x       Extractor
}

// add records a file read whole, of n bytes and distinct trigrams tris,
// or, with !ok, one whose content is not indexed.
func (b *batch) add(rel string, s indexfile.Stamp, n int, tris []uint32, ok bool) {
	if !ok {
		b.files = append(b.files, indexfile.Entry{Path: rel, Stamp: indexfile.Stamp{Size: indexfile.Unindexed}})
		b.skipped++
		return
	}
	id := uint64(len(b.files))
	b.files = append(b.files, indexfile.Entry{Path: rel, Stamp: s})
	b.bytes += int64(n)
	at := len(b.pairs)
	b.grow(len(tris))
	b.pairs = b.pairs[:at+len(tris)]
	for i, t := range tris {
		b.pairs[at+i] = uint64(t)<<32 | id
	}
}

// grow makes room for n pairs more. The first batch's buffer starts
// small and grows fourfold, so that a small build touches little.
func (b *batch) grow(n int) {
	if len(b.pairs)+n <= cap(b.pairs) {
		return
	}
	c := max(len(b.pairs)+n, min(batchPairs(), max(4*cap(b.pairs), 64<<10)))
	p := b.ar.Uint64s(c)[:len(b.pairs)]
	copy(p, b.pairs)
	b.pairs = p
}

// run sorts the batch's pairs and encodes them as a run whose ids are the
// files' places in the batch, valid until the next run.
func (b *batch) run() []byte {
	if cap(b.scratch) < len(b.pairs) {
		b.scratch = b.ar.Uint64s(cap(b.pairs))
	}
	b.pairs = sortPairs(b.pairs, b.scratch[:len(b.pairs)])
	if cap(b.enc) < 2*len(b.pairs) {
		// Room for a batch of the most pairs, unless its lists are
		// long; only the pages used are touched.
		b.enc = b.ar.Bytes(3 * cap(b.pairs))[:0]
	}
	b.enc = encodeRun(b.enc[:0], b.pairs)
	return b.enc
}

// reset empties the batch for the next files, keeping its buffers.
func (b *batch) reset() {
	clear(b.files) // drop the paths
	b.files, b.pairs = b.files[:0], b.pairs[:0]
	b.bytes, b.skipped = 0, 0
}

// sortPairs sorts pairs by trigram, keeping the order of equal trigrams
// (so each trigram's ids stay ascending): an LSD radix sort in two passes
// of 12 bits through tmp, which must be as long as pairs. The sorted
// pairs are in pairs' own array.
func sortPairs(pairs, tmp []uint64) []uint64 {
	var count [2][1 << 12]int
	for _, p := range pairs {
		count[0][p>>32&(1<<12-1)]++
		count[1][p>>44&(1<<12-1)]++
	}
	src, dst := pairs, tmp
	for pass, shift := range [2]uint{32, 44} {
		c := &count[pass]
		sum := 0
		for i, n := range c {
			c[i] = sum
			sum += n
		}
		for _, p := range src {
			k := p >> shift & (1<<12 - 1)
			dst[c[k]] = p
			c[k]++
		}
		src, dst = dst, src
	}
	return src
}

// encodeRun appends the run of sorted pairs to out.
func encodeRun(out []byte, pairs []uint64) []byte {
	var prevTri uint32
	for i := 0; i < len(pairs); {
		t := uint32(pairs[i] >> 32)
		// The list's length comes before it: a first pass over its ids
		// counts its bytes.
		j, size, prev := i, 0, uint32(0)
		for ; j < len(pairs) && uint32(pairs[j]>>32) == t; j++ {
			id := uint32(pairs[j])
			size += uvarintLen(id - prev)
			prev = id
		}
		out = binary.AppendUvarint(out, uint64(t-prevTri))
		out = binary.AppendUvarint(out, uint64(prev))
		out = binary.AppendUvarint(out, uint64(size))
		out = slices.Grow(out, size)
		prev = 0
		for _, p := range pairs[i:j] {
			id := uint32(p)
			if d := id - prev; d < 0x80 {
				out = append(out, byte(d))
			} else {
				out = binary.AppendUvarint(out, uint64(d))
			}
			prev = id
		}
		prevTri, i = t, j
	}
	return out
}

// uvarintLen is the length of v as a uvarint.
func uvarintLen(v uint32) int { return (bits.Len32(v|1) + 6) / 7 }

// extractor finds the distinct trigrams of one file. Source is almost all
// ASCII, so trigrams of three 7-bit bytes have a bitset of their own,
// small enough to stay in cache; the few others share one over all 24
// bits.
type Extractor struct {
	ascii *[1 << 21 / 64]uint64 // bit per trigram of 7-bit bytes, by asciiKey
	other *[1 << 24 / 64]uint64 // bit per other trigram, allocated on the first one
	keys  []uint32              // addASCII's keys, asciiChunk of them
	tris  []uint32
	Buf   []byte
}

// asciiKey packs a trigram of three 7-bit bytes into 21 bits.
func asciiKey(t uint32) uint32 { return t>>2&(0x7f<<14) | t>>1&(0x7f<<7) | t&0x7f }

// distinct returns the distinct trigrams of data, in no order, valid until
// the next call.
func (x *Extractor) Distinct(data []byte) []uint32 {
	if x.ascii == nil {
		x.ascii = new([1 << 21 / 64]uint64)
	}
	if x.keys == nil {
		x.keys = make([]uint32, asciiChunk)
	}
	x.tris = x.tris[:0]
	// Stretches of 7-bit bytes go through the fast loop, a chunk at a
	// time; the trigrams that hold a byte above them, one by one.
	for i := 0; i+2 < len(data); {
		j := i + nextHigh(data[i:])
		for k := i; k+2 < j; k += asciiChunk - 2 {
			n := x.addASCII(data[k:min(j, k+asciiChunk)], x.keys, 0)
			for _, a := range x.keys[:n] {
				x.tris = append(x.tris, a>>14<<16|a>>7&0x7f<<8|a&0x7f)
			}
		}
		if j == len(data) {
			break
		}
		next := j + 1
		for next < len(data) && data[next] >= 0x80 {
			next++
		}
		for k := max(i, j-2); k < next && k+2 < len(data); k++ {
			t := uint32(data[k])<<16 | uint32(data[k+1])<<8 | uint32(data[k+2])
			if x.other == nil {
				x.other = new([1 << 24 / 64]uint64)
			}
			if w, bit := &x.other[t>>6], uint64(1)<<(t&63); *w&bit == 0 {
				*w |= bit
				x.tris = append(x.tris, t)
			}
		}
		i = next
	}
	for _, t := range x.tris {
		if t&0x808080 == 0 {
			x.ascii[asciiKey(t)>>6] = 0
		} else {
			x.other[t>>6] = 0
		}
	}
	return x.tris
}

// asciiChunk is the most bytes addASCII takes at once: it may store one
// key more than there are trigrams.
const asciiChunk = 64 << 10

// addASCII adds to keys[n:] the key of each trigram of data, all 7-bit
// bytes, not seen before, and returns the new count. It has no branch on
// whether a trigram is new, which a CPU cannot predict: every key is
// stored, and the count moves past it only when it was new.
func (x *Extractor) addASCII(data []byte, keys []uint32, n int) int {
	set := x.ascii
	a := uint32(data[0])<<7 | uint32(data[1])
	for _, c := range data[2:] {
		a = (a<<7 | uint32(c)) & (1<<21 - 1)
		w := &set[a>>6]
		old := *w
		*w = old | 1<<(a&63)
		keys[n] = a
		n += int(^old >> (a & 63) & 1)
	}
	return n
}

// nextHigh returns the index of the first byte of data above 0x7f, or
// len(data).
func nextHigh(data []byte) int {
	i := 0
	for ; i+8 <= len(data); i += 8 {
		if binary.LittleEndian.Uint64(data[i:])&0x8080808080808080 != 0 {
			break
		}
	}
	for ; i < len(data); i++ {
		if data[i] >= 0x80 {
			return i
		}
	}
	return i
}
