package checkpoint

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/indusagi/induscode/internal/atomicfile"
	"github.com/indusagi/induscode/internal/flock"
	"github.com/indusagi/induscode/workspace"
)

// Layout of a store directory.
const (
	indexName  = "index.json"          // the index, replaced atomically on every change
	blobsName  = "blobs"               // contents, one file per SHA-256, named by its hex
	aftersName = "after"               // links to content nodes left, by SHA-256; shown only once verified
	lockName   = "lock"                // flock target serialising processes
	tmpPrefix  = atomicfile.TempPrefix // files being written; never read
)

// DiskStore is a Store in a directory: every content once, in a file named
// by its SHA-256, and an index of nodes replaced atomically (temp file,
// fsync, rename, fsync of the directory) on every change. A lock file
// serialises the processes that share the directory. Nothing is created on
// disk until the first record.
//
// Paths inside the store's base directory (the workspace, for
// [ForWorkspace]) are kept relative to it, so a workspace that is moved or
// checked out elsewhere keeps its history.
type DiskStore struct {
	dir  string
	base string // "" keeps every path absolute
	mu   sync.Mutex
}

var _ Store = (*DiskStore)(nil)

// NewDiskStore returns a store kept in dir that records absolute paths.
func NewDiskStore(dir string) *DiskStore { return &DiskStore{dir: filepath.Clean(dir)} }

// ForWorkspace returns the store of a workspace (its checkpoints folder,
// see package workspace), recording paths inside root relative to it.
// root should be absolute.
func ForWorkspace(root string) *DiskStore {
	l := workspace.At(root)
	return &DiskStore{dir: l.Checkpoints(), base: l.Root()}
}

// Dir returns the store's directory.
func (s *DiskStore) Dir() string { return s.dir }

// Record implements Store.
func (s *DiskStore) Record(node, tool, path string, prior Prior) (Entry, bool, error) {
	if err := checkArgs(node, path); err != nil {
		return Entry{}, false, err
	}
	var (
		got   Entry
		added bool
	)
	err := s.update(true, false, func(x *index) (bool, error) {
		if n := x.node(node); n != nil {
			if e, ok := n.File(path); ok {
				got = e
				return false, nil
			}
		}
		e := Entry{Path: path, Exists: prior.Exists}
		if prior.Exists {
			if prior.Content == nil {
				return false, fmt.Errorf("checkpoint %s: prior content is missing", path)
			}
			hash, size, err := s.putBlob(prior.Content)
			if err != nil {
				return false, fmt.Errorf("checkpoint %s: %w", path, err)
			}
			e.Hash, e.Size, e.Mode = hash, size, prior.Mode.Perm()
		}
		x.add(node, tool, e, time.Now())
		got, added = e, true
		return true, nil
	})
	return got, added, err
}

// Forget implements Store.
func (s *DiskStore) Forget(node, path string) error {
	return s.update(false, true, func(x *index) (bool, error) {
		before := len(x.Nodes)
		n := x.node(node)
		if n == nil {
			return false, nil
		}
		files := len(n.Files)
		x.forget(node, path)
		return len(x.Nodes) != before || len(n.Files) != files, nil
	})
}

// Nodes implements Store.
func (s *DiskStore) Nodes() ([]Node, error) {
	var out []Node
	err := s.update(false, false, func(x *index) (bool, error) {
		out = cloneNodes(x.Nodes)
		return false, nil
	})
	return out, err
}

// Content implements Store.
func (s *DiskStore) Content(e Entry) ([]byte, error) {
	if !e.Exists {
		return nil, fmt.Errorf("%s did not exist at that point; there is no content", e.Path)
	}
	if !validHash(e.Hash) {
		return nil, fmt.Errorf("%w: bad content hash %q for %s", ErrCorrupt, e.Hash, e.Path)
	}
	b, err := os.ReadFile(filepath.Join(s.dir, blobsName, e.Hash))
	if err != nil {
		return nil, fmt.Errorf("reading the stored content of %s: %w", e.Path, err)
	}
	return b, verify(e, b)
}

// Settle implements Store. The content is kept as a copy under after/
// (written, not synced: it only ever serves to show a drift as a diff, and
// is shown only when its hash checks out, so a copy lost to a crash shows
// as "not kept", never as wrong content).
func (s *DiskStore) Settle(node, path string, o Outcome) error {
	after := AfterNone
	if o.Exists {
		if !validHash(o.Hash) {
			return fmt.Errorf("checkpoint %s: bad after hash %q", path, o.Hash)
		}
		after = o.Hash
	}
	return s.update(false, false, func(x *index) (bool, error) {
		if !x.settle(node, path, after) {
			return false, nil
		}
		if o.Exists && o.File != "" {
			s.keepAfter(o.File, after)
		}
		return true, nil
	})
}

// keepAfter copies file to after/<hash> if its content has that hash.
func (s *DiskStore) keepAfter(file, hash string) {
	dir := filepath.Join(s.dir, aftersName)
	final := filepath.Join(dir, hash)
	if _, err := os.Lstat(final); err == nil {
		return
	}
	if workspace.MkdirAll(dir, 0o700) != nil {
		return
	}
	src, err := os.Open(file)
	if err != nil {
		return
	}
	defer src.Close()
	if fi, err := src.Stat(); err != nil || !fi.Mode().IsRegular() || fi.Size() > MaxPriorBytes {
		return
	}
	tmp, err := atomicfile.CreateTemp(dir)
	if err != nil {
		return
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed
	h := sha256.New()
	_, err = io.Copy(io.MultiWriter(tmp, h), src)
	if cerr := tmp.Close(); err != nil || cerr != nil || hex.EncodeToString(h.Sum(nil)) != hash {
		return
	}
	_ = os.Rename(tmp.Name(), final)
}

// AfterContent implements Store.
func (s *DiskStore) AfterContent(e Entry) ([]byte, error) {
	if !validHash(e.After) {
		return nil, fmt.Errorf("the content %s had after the change is not recorded", e.Path)
	}
	p := filepath.Join(s.dir, aftersName, e.After)
	if fi, err := os.Lstat(p); err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("the content %s had after the change is not kept", e.Path)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, fmt.Errorf("the content %s had after the change is not kept", e.Path)
	}
	return b, verifyAfter(e, b)
}

// Drop implements Store.
func (s *DiskStore) Drop(ids ...string) error {
	return s.update(false, true, func(x *index) (bool, error) {
		before := len(x.Nodes)
		x.drop(ids)
		return len(x.Nodes) != before, nil
	})
}

// update runs f on the index while holding the store's locks and saves the
// index if f reports a change; with gc it then removes the contents no node
// refers to any more. Without create, a store that has no directory yet
// gives f an empty index and stays absent.
func (s *DiskStore) update(create, gc bool, f func(*index) (bool, error)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if create {
		if err := workspace.MkdirAll(filepath.Join(s.dir, blobsName), 0o700); err != nil {
			return fmt.Errorf("creating the checkpoint directory: %w", err)
		}
	} else if _, err := os.Stat(s.dir); errors.Is(err, fs.ErrNotExist) {
		_, err := f(&index{Version: indexVersion})
		return err
	}
	lf, err := os.OpenFile(filepath.Join(s.dir, lockName), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("opening the checkpoint lock: %w", err)
	}
	defer lf.Close()
	if err := flock.Lock(lf); err != nil {
		return fmt.Errorf("locking the checkpoint store: %w", err)
	}
	defer flock.Unlock(lf)

	x, err := s.load()
	if err != nil {
		return err
	}
	changed, err := f(&x)
	if err != nil || !changed {
		return err
	}
	data, err := s.encode(x)
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(filepath.Join(s.dir, indexName), append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("saving the checkpoint index: %w", err)
	}
	if gc {
		s.collect(blobsName, x.hashes())
		s.collect(aftersName, x.afters())
	}
	return nil
}

func (s *DiskStore) load() (index, error) {
	path := filepath.Join(s.dir, indexName)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return index{Version: indexVersion}, nil
	}
	if err != nil {
		return index{}, fmt.Errorf("reading the checkpoint index: %w", err)
	}
	x, err := parseIndex(data, s.base)
	if err != nil {
		return index{}, fmt.Errorf("%s: %w; move it aside to start a fresh history", path, err)
	}
	return x, nil
}

// encode renders the index file, paths under base made relative.
func (s *DiskStore) encode(x index) ([]byte, error) {
	if s.base != "" {
		x.Nodes = cloneNodes(x.Nodes)
		for i := range x.Nodes {
			for j, e := range x.Nodes[i].Files {
				if rel, err := filepath.Rel(s.base, e.Path); err == nil && rel != "." && rel != ".." &&
					!strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
					x.Nodes[i].Files[j].Path = filepath.ToSlash(rel)
				}
			}
		}
	}
	return json.MarshalIndent(&x, "", " ")
}

// parseIndex decodes and checks an index file; relative paths, which must
// stay inside base, are joined to it.
func parseIndex(data []byte, base string) (index, error) {
	var x index
	if err := json.Unmarshal(data, &x); err != nil {
		return index{}, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	for i := range x.Nodes {
		for j, e := range x.Nodes[i].Files {
			if e.Path == "" || filepath.IsAbs(e.Path) {
				continue
			}
			rel := filepath.FromSlash(e.Path)
			if base == "" || !filepath.IsLocal(rel) {
				return index{}, fmt.Errorf("%w: node %s has a relative path %q that cannot be placed", ErrCorrupt, x.Nodes[i].ID, e.Path)
			}
			x.Nodes[i].Files[j].Path = filepath.Join(base, rel)
		}
	}
	if err := x.check(); err != nil {
		return index{}, err
	}
	return x, nil
}

// putBlob stores r's bytes under their SHA-256 and returns the hex hash
// and size. Contents already stored are not written twice.
func (s *DiskStore) putBlob(r io.Reader) (string, int64, error) {
	dir := filepath.Join(s.dir, blobsName)
	tmp, err := atomicfile.CreateTemp(dir)
	if err != nil {
		return "", 0, err
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(tmp, h), r)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", 0, fmt.Errorf("storing prior content: %w", err)
	}
	hash := hex.EncodeToString(h.Sum(nil))
	final := filepath.Join(dir, hash)
	if fi, err := os.Stat(final); err == nil && fi.Size() == n {
		return hash, n, nil
	}
	if err := os.Rename(tmp.Name(), final); err != nil {
		return "", 0, fmt.Errorf("storing prior content: %w", err)
	}
	atomicfile.SweepSometimes(dir)
	return hash, n, atomicfile.SyncDir(dir)
}

// Sweep removes the temp files that writers killed mid-write left in the
// store (see atomicfile.Sweep), and returns how many. A session calls it
// when it starts; later writes sweep now and then on their own.
func (s *DiskStore) Sweep() int {
	return atomicfile.Sweep(s.dir) + atomicfile.Sweep(filepath.Join(s.dir, blobsName))
}

// collect removes contents not in live, and temp files a crashed writer
// left behind (writers hold the lock, so none is in progress).
func (s *DiskStore) collect(sub string, live map[string]bool) {
	dir := filepath.Join(s.dir, sub)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, de := range entries {
		name := de.Name()
		if live[name] || (!strings.HasPrefix(name, tmpPrefix) && !validHash(name)) {
			continue
		}
		os.Remove(filepath.Join(dir, name))
	}
}
