package checkpoint

import (
	"time"
)

// Limits of the disk store. A checkpoint is for undoing recent work; a
// week covers a working session with room to spare, and 1 GiB bounds what
// the store can take of a disk (each stored content counts once).
const (
	DefaultMaxAge   = 7 * 24 * time.Hour
	DefaultMaxBytes = 1 << 30
)

// Pruned says what a prune removed.
type Pruned struct {
	Nodes int   // nodes dropped
	Bytes int64 // stored content no remaining node refers to, freed
}

// Prune drops the nodes older than maxAge (by the time of their first
// record), then the oldest nodes until the content the rest refer to
// (each stored content counted once) is at most maxBytes. The newest node
// is never dropped by size alone. Zero limits mean the defaults.
func (s *DiskStore) Prune(maxAge time.Duration, maxBytes int64, now time.Time) (Pruned, error) {
	if maxAge <= 0 {
		maxAge = DefaultMaxAge
	}
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	var p Pruned
	err := s.update(gc, func(x *index) ([]string, error) {
		before := x.bytes()
		cut := now.Add(-maxAge)
		var gone []string
		keep := x.Nodes[:0:0]
		for _, n := range x.Nodes {
			if n.Time.Before(cut) {
				gone = append(gone, n.ID)
				continue
			}
			keep = append(keep, n)
		}
		rest := index{Version: x.Version, Nodes: keep}
		for len(rest.Nodes) > 1 && rest.bytes() > maxBytes {
			gone = append(gone, rest.Nodes[0].ID)
			rest.Nodes = rest.Nodes[1:]
		}
		x.drop(gone)
		p.Nodes, p.Bytes = len(gone), before-x.bytes()
		return gone, nil
	})
	return p, err
}

// bytes is the size of the content the index refers to, each hash once.
func (x *index) bytes() int64 {
	seen := make(map[string]bool)
	var n int64
	for _, nd := range x.Nodes {
		for _, e := range nd.Files {
			if e.Exists && !seen[e.Hash] {
				seen[e.Hash] = true
				n += e.Size
			}
		}
	}
	return n
}
