package ledger

import (
	"slices"
	"sync"

	"github.com/indusagi/induscode/tool"
)

// Ledger is the immutable enrollment value: the log in append order, its
// folded snapshot and the sequence the next event will carry. Every
// transition returns a new Ledger; the receiver is never changed, so a Ledger
// may be shared between goroutines freely. The zero Ledger is [Empty].
type Ledger struct {
	log  logVec
	snap Snapshot
	next uint64
}

// EnrollRequest is what an enrollment supplies; the ledger stamps the op,
// sequence and time.
type EnrollRequest struct {
	Capability tool.Tool
	Server     string
	// Key is the entry's key; empty means the content key of the
	// capability's name and input schema.
	Key Key
}

// Empty returns a ledger with no events; its first event gets sequence 1.
func Empty() Ledger { return Ledger{next: 1} }

// FromLog rebuilds a ledger from a persisted log: the snapshot is the fold
// of log and the next sequence is one past its high-water mark, so the result
// equals the ledger that wrote the log. log is copied.
func FromLog(log []Entry) Ledger {
	snap := Reduce(log)
	return Ledger{log: logVec{}.append(log...), snap: snap, next: snap.highWater + 1}
}

// NextSeq is the sequence the next event will carry.
func (l Ledger) NextSeq() uint64 { return max(l.next, 1) }

// HighWater is the highest sequence folded into the snapshot.
func (l Ledger) HighWater() uint64 { return l.snap.highWater }

// Len is the number of events in the log.
func (l Ledger) Len() int { return len(l.log.entries) }

// Log returns a copy of the log in append order.
func (l Ledger) Log() []Entry { return slices.Clone(l.log.entries) }

// Since returns a copy of the events appended after the first n, the way a
// writer finds what it has not persisted yet.
func (l Ledger) Since(n int) []Entry {
	if n >= len(l.log.entries) {
		return nil
	}
	return slices.Clone(l.log.entries[max(n, 0):])
}

// Snapshot returns the folded view.
func (l Ledger) Snapshot() Snapshot { return l.snap }

// Live returns the live capabilities in stable insertion order: what a host
// grafts onto its deck.
func (l Ledger) Live() []tool.Tool { return l.snap.Live() }

// LiveFor returns the live capabilities one server contributes.
func (l Ledger) LiveFor(server string) []tool.Tool { return l.snap.LiveFor(server) }

// Counts returns the live count per server.
func (l Ledger) Counts() []ServerCount { return l.snap.ByServer() }

// Enroll appends an enroll event: an upsert on the request's key.
func (l Ledger) Enroll(req EnrollRequest, at string) Ledger {
	return l.EnrollAll([]EnrollRequest{req}, at)
}

// EnrollAll appends one enroll event per request, in order, as one batch.
// A request without a capability is skipped: there is nothing to enroll.
func (l Ledger) EnrollAll(reqs []EnrollRequest, at string) Ledger {
	entries := make([]Entry, 0, len(reqs))
	seq := l.NextSeq()
	for _, r := range reqs {
		if r.Capability == nil {
			continue
		}
		key := r.Key
		if key == "" {
			s := r.Capability.Spec()
			key = ContentKey(s.Name, s.InputSchema)
		}
		entries = append(entries, Entry{Op: Enroll, Key: key, Server: r.Server, Capability: r.Capability, Seq: seq, At: at})
		seq++
	}
	return l.commit(entries)
}

// Retire appends a retire event for key. Retiring a key that is not live
// changes no live capability but is still recorded, for audit.
func (l Ledger) Retire(key Key, server, at string) Ledger {
	return l.commit([]Entry{{Op: Retire, Key: key, Server: server, Seq: l.NextSeq(), At: at}})
}

// RetireAll appends one retire event per key, in order, as one batch.
func (l Ledger) RetireAll(keys []Key, server, at string) Ledger {
	entries := make([]Entry, len(keys))
	seq := l.NextSeq()
	for i, k := range keys {
		entries[i] = Entry{Op: Retire, Key: k, Server: server, Seq: seq, At: at}
		seq++
	}
	return l.commit(entries)
}

// WithdrawServer retires every capability server has live, in live order,
// as one batch; the disconnect counterpart of enrolling a server's tools.
func (l Ledger) WithdrawServer(server, at string) Ledger {
	var keys []Key
	for _, e := range l.snap.live {
		if e.Server == server {
			keys = append(keys, e.Key)
		}
	}
	return l.RetireAll(keys, server, at)
}

// commit appends a batch of events whose sequences follow the log's.
func (l Ledger) commit(entries []Entry) Ledger {
	if len(entries) == 0 {
		return l
	}
	f := l.snap.resume(len(entries))
	for i := range entries {
		f.apply(&entries[i])
	}
	return Ledger{
		log:  l.log.append(entries...),
		snap: f.freeze(),
		next: entries[len(entries)-1].Seq + 1,
	}
}

// logVec is an append-only slice shared between ledger versions. The newest
// version derived from a backing array appends in place (amortised O(1));
// appending to an older version, which would overwrite a newer version's
// events, copies instead. Readers only read below their own length, which
// in-place appends never write, so no lock is needed to read.
type logVec struct {
	entries []Entry
	owner   *logOwner
}

// logOwner records how long the longest version over one backing array is.
type logOwner struct {
	mu sync.Mutex
	n  int
}

func (v logVec) append(es ...Entry) logVec {
	if len(es) == 0 {
		return v
	}
	if v.owner != nil {
		v.owner.mu.Lock()
		if v.owner.n == len(v.entries) && cap(v.entries)-len(v.entries) >= len(es) {
			out := append(v.entries, es...)
			v.owner.n = len(out)
			v.owner.mu.Unlock()
			return logVec{entries: out, owner: v.owner}
		}
		v.owner.mu.Unlock()
	}
	n := len(v.entries) + len(es)
	out := make([]Entry, len(v.entries), max(2*n, 16))
	copy(out, v.entries)
	out = append(out, es...)
	return logVec{entries: out, owner: &logOwner{n: len(out)}}
}

// Compact returns a shorter log that replays to the same live set: the
// newest keep events, preceded by the live enrollments whose last event is
// older than those (in sequence order, with their own sequences). A host
// rewrites a long log with it. History before the kept events is lost, and
// the live order of tools enrolled before them may change; which tools are
// live, with which capability, is kept.
func (l Ledger) Compact(keep int) []Entry {
	n := len(l.log.entries)
	keep = min(max(keep, 0), n)
	tail := l.log.entries[n-keep:]
	inTail := make(map[Key]bool, len(tail))
	for _, e := range tail {
		inTail[e.Key] = true
	}
	var out []Entry
	for _, e := range l.snap.live {
		if !inTail[e.Key] {
			out = append(out, e)
		}
	}
	slices.SortStableFunc(out, bySeq)
	return append(out, tail...)
}
