package ledger

import (
	"slices"

	"github.com/indusagi/induscode/tool"
)

// Snapshot is the fold of a log: the live enrollments in insertion order, the
// live count per server and the highest sequence folded. It is immutable.
type Snapshot struct {
	live      []Entry     // the live Enroll entries, in insertion order
	index     map[Key]int // key -> position in live
	counts    []ServerCount
	highWater uint64
}

// ServerCount is how many live capabilities one server has.
type ServerCount struct {
	Server string
	Count  int
}

// Reduce folds entries into a snapshot. It is pure and total and does not
// depend on the order of entries: they are folded by Seq (entries with equal
// Seq in their given order). An Enroll of a key that is live replaces its
// capability in place; a Retire removes the key and keeps the order of the
// survivors; a Retire of an unknown key changes nothing. entries is not
// modified.
func Reduce(entries []Entry) Snapshot {
	if len(entries) == 0 {
		return Snapshot{}
	}
	// A large log does not fit in cache, and following it in Seq order
	// makes each event a cache miss. So one pass in storage order
	// distils every event to a key number and an op, the fold runs over
	// those small arrays, and only the survivors are copied at the end.
	ids := make(map[Key]int32)
	packed := make([]int32, len(entries)) // key number << 1 | 1 for Retire
	var highWater uint64
	for i := range entries {
		e := &entries[i]
		id, ok := ids[e.Key]
		if !ok {
			id = int32(len(ids))
			ids[e.Key] = id
		}
		packed[i] = id << 1
		if e.Op == Retire {
			packed[i] |= 1
		} else if e.Op != Enroll {
			packed[i] = -1 // an op this reducer does not know: no effect
		}
		highWater = max(highWater, e.Seq)
	}
	slotOf := make([]int32, len(ids)) // key number -> live slot + 1 (0: not live)
	var slots []int32                 // slot -> position of its winning entry
	var dead []bool
	ndead := 0
	fold := func(i int) {
		p := packed[i]
		if p < 0 {
			return
		}
		id := p >> 1
		if p&1 == 0 { // Enroll: replace in place, or append
			if s := slotOf[id]; s > 0 {
				slots[s-1] = int32(i)
				return
			}
			slots = append(slots, int32(i))
			dead = append(dead, false)
			slotOf[id] = int32(len(slots))
			return
		}
		if s := slotOf[id]; s > 0 { // Retire of a live key
			dead[s-1] = true
			slotOf[id] = 0
			ndead++
		}
	}
	if slices.IsSortedFunc(entries, bySeq) {
		for i := range entries {
			fold(i)
		}
	} else {
		for _, i := range foldOrder(entries) {
			fold(i)
		}
	}
	f := folder{
		slots:     make([]Entry, 0, len(slots)-ndead),
		index:     make(map[Key]int, len(slots)-ndead),
		highWater: highWater,
	}
	for s, i := range slots {
		if !dead[s] {
			f.index[entries[i].Key] = len(f.slots)
			f.slots = append(f.slots, entries[i])
		}
	}
	return f.freeze()
}

// foldOrder returns the positions of entries ordered by Seq, ties in their
// given order. A ledger's log numbers its events densely, so the common case
// places each position by its Seq in one pass; sparse or repeated
// sequences fall back to sorting (seq, position) pairs.
func foldOrder(entries []Entry) []int {
	lo, hi := entries[0].Seq, entries[0].Seq
	for i := range entries {
		lo, hi = min(lo, entries[i].Seq), max(hi, entries[i].Seq)
	}
	if span := hi - lo; span < uint64(len(entries)) {
		slot := make([]int, len(entries))
		for i := range slot {
			slot[i] = -1
		}
		dense := true
		for i := range entries {
			j := entries[i].Seq - lo
			if slot[j] >= 0 {
				dense = false // a repeated seq: sort to keep ties stable
				break
			}
			slot[j] = i
		}
		if dense {
			return slot
		}
	}
	order := make([]seqPos, len(entries))
	for i := range entries {
		order[i] = seqPos{entries[i].Seq, i}
	}
	slices.SortFunc(order, func(a, b seqPos) int {
		if a.seq != b.seq {
			if a.seq < b.seq {
				return -1
			}
			return 1
		}
		return a.pos - b.pos
	})
	out := make([]int, len(order))
	for i, o := range order {
		out[i] = o.pos
	}
	return out
}

type seqPos struct {
	seq uint64
	pos int
}

func bySeq(a, b Entry) int {
	switch {
	case a.Seq < b.Seq:
		return -1
	case a.Seq > b.Seq:
		return 1
	}
	return 0
}

// folder is the mutable state of a fold. Retired slots are tombstoned and
// squeezed out by freeze, so a retire costs O(1) rather than a shift.
type folder struct {
	slots     []Entry
	dead      []bool
	ndead     int
	index     map[Key]int // key -> slot
	highWater uint64
}

// resume starts a folder from a snapshot, to apply entries newer than it.
func (s Snapshot) resume(extra int) folder {
	f := folder{
		slots:     make([]Entry, len(s.live), len(s.live)+extra),
		dead:      make([]bool, len(s.live), len(s.live)+extra),
		index:     make(map[Key]int, len(s.live)+extra),
		highWater: s.highWater,
	}
	copy(f.slots, s.live)
	for k, i := range s.index {
		f.index[k] = i
	}
	return f
}

func (f *folder) apply(e *Entry) {
	f.highWater = max(f.highWater, e.Seq)
	switch e.Op {
	case Enroll:
		if i, ok := f.index[e.Key]; ok {
			f.slots[i] = *e
			return
		}
		f.index[e.Key] = len(f.slots)
		f.slots = append(f.slots, *e)
		f.dead = append(f.dead, false)
	case Retire:
		if i, ok := f.index[e.Key]; ok {
			delete(f.index, e.Key)
			f.dead[i] = true
			f.ndead++
		}
	}
}

func (f *folder) freeze() Snapshot {
	live := f.slots
	if f.ndead > 0 {
		live = make([]Entry, 0, len(f.slots)-f.ndead)
		for i, e := range f.slots {
			if !f.dead[i] {
				f.index[e.Key] = len(live)
				live = append(live, e)
			}
		}
	}
	live = slices.Clip(live)
	var counts []ServerCount
	at := make(map[string]int)
	for _, e := range live {
		i, ok := at[e.Server]
		if !ok {
			i = len(counts)
			at[e.Server] = i
			counts = append(counts, ServerCount{Server: e.Server})
		}
		counts[i].Count++
	}
	return Snapshot{live: live, index: f.index, counts: counts, highWater: f.highWater}
}

// Len is the number of live capabilities.
func (s Snapshot) Len() int { return len(s.live) }

// HighWater is the highest sequence folded (0 for an empty log).
func (s Snapshot) HighWater() uint64 { return s.highWater }

// Entries returns the live Enroll entries in insertion order.
func (s Snapshot) Entries() []Entry { return slices.Clone(s.live) }

// Keys returns the live keys in insertion order.
func (s Snapshot) Keys() []Key {
	keys := make([]Key, len(s.live))
	for i, e := range s.live {
		keys[i] = e.Key
	}
	return keys
}

// Live returns the live capabilities in insertion order.
func (s Snapshot) Live() []tool.Tool {
	out := make([]tool.Tool, len(s.live))
	for i, e := range s.live {
		out[i] = e.Capability
	}
	return out
}

// LiveFor returns the live capabilities of one server in insertion order.
func (s Snapshot) LiveFor(server string) []tool.Tool {
	var out []tool.Tool
	for _, e := range s.live {
		if e.Server == server {
			out = append(out, e.Capability)
		}
	}
	return out
}

// Lookup returns the live entry under key.
func (s Snapshot) Lookup(key Key) (Entry, bool) {
	i, ok := s.index[key]
	if !ok {
		return Entry{}, false
	}
	return s.live[i], true
}

// ByServer returns the live count of every server that has live
// capabilities, in the order the servers first appear in the live list.
func (s Snapshot) ByServer() []ServerCount { return slices.Clone(s.counts) }

// Count returns the live count of one server.
func (s Snapshot) Count(server string) int {
	for _, c := range s.counts {
		if c.Server == server {
			return c.Count
		}
	}
	return 0
}
