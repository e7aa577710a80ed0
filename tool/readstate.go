package tool

import (
	"crypto/sha256"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// ReadRecord is what the session knew of a file when it last read it.
type ReadRecord struct {
	Path    string    // absolute, cleaned
	Size    int64     // bytes on disk at read time
	ModTime time.Time // modification time at read time
	// Hash is the SHA-256 of the whole file at read time. Edits compare
	// hashes, not modification times: a second-resolution mtime misses a
	// change made in the same second.
	Hash [sha256.Size]byte
	At   time.Time // when the read happened
}

// ReadState is the per-session record of files read. It is safe for
// concurrent use.
type ReadState struct {
	mu    sync.RWMutex
	files map[string]ReadRecord
}

// NewReadState returns an empty record.
func NewReadState() *ReadState { return &ReadState{files: make(map[string]ReadRecord)} }

// Record stores r, replacing any earlier record of the same path.
func (s *ReadState) Record(r ReadRecord) {
	r.Path = filepath.Clean(r.Path)
	if r.At.IsZero() {
		r.At = time.Now()
	}
	s.mu.Lock()
	s.files[r.Path] = r
	s.mu.Unlock()
}

// Lookup returns the record of path, if the session has read it.
func (s *ReadState) Lookup(path string) (ReadRecord, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	r, ok := s.files[filepath.Clean(path)]
	return r, ok
}

// Forget drops the record of path.
func (s *ReadState) Forget(path string) {
	s.mu.Lock()
	delete(s.files, filepath.Clean(path))
	s.mu.Unlock()
}

// Len reports how many files are recorded.
func (s *ReadState) Len() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.files)
}

// Records returns every record, ordered by path; hosts use it to persist a
// session's reads.
func (s *ReadState) Records() []ReadRecord {
	s.mu.RLock()
	out := make([]ReadRecord, 0, len(s.files))
	for _, r := range s.files {
		out = append(out, r)
	}
	s.mu.RUnlock()
	slices.SortFunc(out, func(a, b ReadRecord) int { return strings.Compare(a.Path, b.Path) })
	return out
}
