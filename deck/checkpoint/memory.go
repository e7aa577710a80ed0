package checkpoint

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"sync"
	"time"
)

// MemStore is a Store in memory, for library hosts that keep their own
// session state. Contents are shared between entries with the same hash.
type MemStore struct {
	mu     sync.Mutex
	idx    index
	blobs  map[string][]byte
	afters map[string][]byte // content nodes left, by hash
}

var _ Store = (*MemStore)(nil)

// NewMemStore returns an empty in-memory store.
func NewMemStore() *MemStore {
	return &MemStore{idx: index{Version: indexVersion}, blobs: make(map[string][]byte), afters: make(map[string][]byte)}
}

// Record implements Store.
func (s *MemStore) Record(node, tool, path string, prior Prior) (Entry, bool, error) {
	if err := checkArgs(node, path); err != nil {
		return Entry{}, false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if n := s.idx.node(node); n != nil {
		if e, ok := n.File(path); ok {
			return e, false, nil
		}
	}
	e := Entry{Path: path, Exists: prior.Exists}
	if prior.Exists {
		if prior.Content == nil {
			return Entry{}, false, fmt.Errorf("checkpoint %s: prior content is missing", path)
		}
		b, err := readAll(prior.Content)
		if err != nil {
			return Entry{}, false, fmt.Errorf("checkpoint %s: reading prior content: %w", path, err)
		}
		sum := sha256.Sum256(b)
		e.Hash, e.Size, e.Mode = hex.EncodeToString(sum[:]), int64(len(b)), prior.Mode.Perm()
		if _, ok := s.blobs[e.Hash]; !ok {
			s.blobs[e.Hash] = b
		}
	}
	s.idx.add(node, tool, e, time.Now())
	return e, true, nil
}

// Forget implements Store.
func (s *MemStore) Forget(node, path string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.idx.forget(node, path)
	s.gc()
	return nil
}

// Nodes implements Store.
func (s *MemStore) Nodes() ([]Node, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return cloneNodes(s.idx.Nodes), nil
}

// Content implements Store.
func (s *MemStore) Content(e Entry) ([]byte, error) {
	if !e.Exists {
		return nil, fmt.Errorf("%s did not exist at that point; there is no content", e.Path)
	}
	s.mu.Lock()
	b, ok := s.blobs[e.Hash]
	s.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("%w: no stored content for %s", ErrCorrupt, e.Path)
	}
	return slices.Clone(b), verify(e, b)
}

// Drop implements Store.
func (s *MemStore) Drop(ids ...string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.idx.drop(ids)
	s.gc()
	return nil
}

func (s *MemStore) gc() {
	live := s.idx.hashes()
	for h := range s.blobs {
		if !live[h] {
			delete(s.blobs, h)
		}
	}
	live = s.idx.afters()
	for h := range s.afters {
		if !live[h] {
			delete(s.afters, h)
		}
	}
}

// Settle implements Store. The content is kept (in memory) when File
// still holds it.
func (s *MemStore) Settle(node, path string, o Outcome) error {
	after := AfterNone
	if o.Exists {
		after = o.Hash
	}
	var kept []byte
	if o.Exists && o.File != "" {
		if b, err := os.ReadFile(o.File); err == nil && verifyAfter(Entry{Path: path, After: after}, b) == nil {
			kept = b
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.idx.settle(node, path, after) || kept != nil {
		if kept != nil {
			s.afters[after] = kept
		}
		s.gc()
	}
	return nil
}

// AfterContent implements Store.
func (s *MemStore) AfterContent(e Entry) ([]byte, error) {
	s.mu.Lock()
	b, ok := s.afters[e.After]
	s.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("the content %s had after the change is not kept", e.Path)
	}
	return slices.Clone(b), nil
}

func cloneNodes(ns []Node) []Node {
	out := make([]Node, len(ns))
	for i, n := range ns {
		n.Tools = slices.Clone(n.Tools)
		n.Files = slices.Clone(n.Files)
		out[i] = n
	}
	return out
}

// checkArgs refuses records the index could not hold.
func checkArgs(node, path string) error {
	if node == "" {
		return fmt.Errorf("checkpoint: empty node id")
	}
	if !isAbsClean(path) {
		return fmt.Errorf("checkpoint: path %q must be absolute and clean", path)
	}
	return nil
}

// readAll is io.ReadAll with one allocation when r can tell its size (an
// *os.File), instead of a growing series of them for a large file.
func readAll(r io.Reader) ([]byte, error) {
	st, ok := r.(interface{ Stat() (fs.FileInfo, error) })
	if !ok {
		return io.ReadAll(r)
	}
	fi, err := st.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return io.ReadAll(r)
	}
	var buf bytes.Buffer
	buf.Grow(int(fi.Size()) + bytes.MinRead)
	_, err = buf.ReadFrom(r)
	return buf.Bytes(), err
}
