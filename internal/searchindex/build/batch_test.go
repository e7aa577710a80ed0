package build

import (
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// TestDistinctTrigrams: the extractor finds exactly the distinct trigrams
// of any bytes, however 7-bit and other bytes mix, file after file.
func TestDistinctTrigrams(t *testing.T) {
	var x Extractor
	check := func(t interface{ Fatalf(string, ...any) }, data []byte) {
		want := map[uint32]bool{}
		for i := 0; i+2 < len(data); i++ {
			want[uint32(data[i])<<16|uint32(data[i+1])<<8|uint32(data[i+2])] = true
		}
		got := slices.Clone(x.Distinct(data))
		slices.Sort(got)
		if w := slices.Sorted(maps.Keys(want)); !slices.Equal(got, w) {
			t.Fatalf("distinct(%.40q, %d bytes) = %d trigrams, want %d", data, len(data), len(got), len(w))
		}
	}
	rapid.Check(t, func(t *rapid.T) {
		alphabet := []byte{'a', 'b', '\n', 0x7f, 0x80, 0xc3, 0xa9, 0xff}
		check(t, rapid.SliceOfN(rapid.SampledFrom(alphabet), 0, 200).Draw(t, "data"))
	})
	// Longer than the fast loop's chunk, with nearly every trigram new,
	// so that some straddle the chunks' ends.
	r := rand.New(rand.NewPCG(1, 2))
	long := make([]byte, 2*asciiChunk)
	for i := range long {
		long[i] = byte(r.IntN(0x80))
	}
	check(t, long)
	long[asciiChunk+5] = 0xc3
	check(t, long)
}
