package checkpoint

import (
	"crypto/sha256"
	"encoding/hex"
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
	// compactAt overrides compactBytes (tests).
	compactAt int64
	mu        sync.Mutex
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
	err := s.update(create, func(x *index) ([]string, error) {
		if n := x.node(node); n != nil {
			if e, ok := n.File(path); ok {
				got = e
				return nil, nil
			}
		}
		e := Entry{Path: path, Exists: prior.Exists}
		if prior.Exists {
			hash, size, err := s.priorBlob(prior)
			if err != nil {
				return nil, fmt.Errorf("checkpoint %s: %w", path, err)
			}
			e.Hash, e.Size, e.Mode = hash, size, prior.Mode.Perm()
		}
		x.add(node, tool, e, time.Now())
		got, added = e, true
		return []string{node}, nil
	})
	return got, added, err
}

// Forget implements Store.
func (s *DiskStore) Forget(node, path string) error {
	return s.update(gc, func(x *index) ([]string, error) {
		n := x.node(node)
		if n == nil {
			return nil, nil
		}
		if _, ok := n.File(path); !ok {
			return nil, nil
		}
		x.forget(node, path)
		return []string{node}, nil
	})
}

// Nodes implements Store.
func (s *DiskStore) Nodes() ([]Node, error) {
	var out []Node
	err := s.update(readOnly, func(x *index) ([]string, error) {
		out = cloneNodes(x.Nodes)
		return nil, nil
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
	b, err := workspace.ReadFile(filepath.Join(s.dir, blobsName, e.Hash))
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
	return s.update(lazy, func(x *index) ([]string, error) {
		if !x.settle(node, path, after) {
			return nil, nil
		}
		if o.Exists && o.File != "" {
			s.keepAfter(o.File, after)
		}
		return []string{node}, nil
	})
}

// MaxKeptAfterBytes is the largest content a node left that the disk store
// keeps a copy of, for showing a drift as a diff. The copy is written on
// every change, so it is bounded: 4 MiB holds any source file, and keeps
// an edit of a 10 MB file from paying for a second 10 MB write. A larger
// file that drifted is still refused; it is listed without a diff.
const MaxKeptAfterBytes = 4 << 20

// keepAfter copies file to after/<hash> (AfterContent checks the hash).
func (s *DiskStore) keepAfter(file, hash string) {
	dir := filepath.Join(s.dir, aftersName)
	final := filepath.Join(dir, hash)
	if _, err := workspace.Lstat(final); err == nil {
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
	if fi, err := src.Stat(); err != nil || !fi.Mode().IsRegular() || fi.Size() > MaxKeptAfterBytes {
		return
	}
	tmp, err := workspace.CreateTemp(dir)
	if err != nil {
		return
	}
	defer workspace.Remove(tmp.Name()) // a no-op once renamed
	// Not hashed here: AfterContent checks the hash before showing it.
	_, err = io.Copy(tmp, src)
	if cerr := tmp.Close(); err != nil || cerr != nil {
		return
	}
	_ = workspace.Rename(tmp.Name(), final)
}

// AfterContent implements Store.
func (s *DiskStore) AfterContent(e Entry) ([]byte, error) {
	if !validHash(e.After) {
		return nil, fmt.Errorf("the content %s had after the change is not recorded", e.Path)
	}
	p := filepath.Join(s.dir, aftersName, e.After)
	if fi, err := workspace.Lstat(p); err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("the content %s had after the change is not kept", e.Path)
	}
	b, err := workspace.ReadFile(p)
	if err != nil {
		return nil, fmt.Errorf("the content %s had after the change is not kept", e.Path)
	}
	return b, verifyAfter(e, b)
}

// Drop implements Store.
func (s *DiskStore) Drop(ids ...string) error {
	return s.update(gc, func(x *index) ([]string, error) {
		var gone []string
		for _, id := range ids {
			if x.node(id) != nil {
				gone = append(gone, id)
			}
		}
		x.drop(gone)
		return gone, nil
	})
}

// updateMode says what an update may do beyond reading the index.
type updateMode uint8

const (
	readOnly updateMode = 0
	create   updateMode = 1 << iota // create the store if it does not exist
	gc                              // then remove contents nothing refers to
	lazy                            // append without fsync: the change is a hint, not history
)

// update runs f on the index while holding the store's locks. f returns
// the ids of the nodes it changed (added, changed or removed); their new
// state is appended to the journal (see journal.go). With gc it then
// removes the contents no node refers to any more. Without create, a store
// that has no directory yet gives f an empty index and stays absent.
func (s *DiskStore) update(mode updateMode, f func(*index) ([]string, error)) error {
	creating, collecting := mode&create != 0, mode&gc != 0
	s.mu.Lock()
	defer s.mu.Unlock()
	if creating {
		if err := workspace.MkdirAll(filepath.Join(s.dir, blobsName), 0o700); err != nil {
			return fmt.Errorf("creating the checkpoint directory: %w", err)
		}
	} else if _, err := workspace.Lstat(s.dir); errors.Is(err, fs.ErrNotExist) {
		_, err := f(&index{Version: indexVersion})
		return err
	}
	lf, err := workspace.OpenFile(filepath.Join(s.dir, lockName), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("opening the checkpoint lock: %w", err)
	}
	defer lf.Close()
	if err := flock.Lock(lf); err != nil {
		return fmt.Errorf("locking the checkpoint store: %w", err)
	}
	defer flock.Unlock(lf)

	st, err := s.load()
	if err != nil {
		return err
	}
	touched, err := f(&st.x)
	if err != nil || len(touched) == 0 {
		return err
	}
	if err := s.save(&st, touched, mode&lazy == 0); err != nil {
		return err
	}
	if collecting {
		s.collect(blobsName, st.x.hashes())
		s.collect(aftersName, st.x.afters())
	}
	return nil
}

// priorBlob stores a prior content and returns its hash and size. When the
// caller knows the hash (the read gate hashed the file when it was read),
// a content already stored under it costs nothing, and one kept as the
// content a node left (after/) is made durable and linked instead of
// written again; the tool that runs next refuses a file that no longer
// has that hash, and the record is then forgotten.
func (s *DiskStore) priorBlob(prior Prior) (string, int64, error) {
	if validHash(prior.Hash) {
		dir := filepath.Join(s.dir, blobsName)
		final := filepath.Join(dir, prior.Hash)
		if fi, err := workspace.Lstat(final); err == nil && fi.Size() == prior.Size {
			return prior.Hash, prior.Size, nil
		}
		// The file itself is durable already (an atomic write synced
		// it): a second name for its inode stores it without a copy. The
		// tool then replaces the path with a new inode, leaving this one
		// to the store; a tool that refuses (content no longer matching
		// the hash) has its record, and so this name, taken back.
		if f, ok := prior.Content.(*os.File); ok {
			if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() == prior.Size {
				if err := linkFile(f, final); err == nil || errors.Is(err, fs.ErrExist) {
					return prior.Hash, prior.Size, workspace.SyncDir(dir)
				}
			}
		}
		if s.promoteAfter(prior.Hash, prior.Size) {
			return prior.Hash, prior.Size, nil
		}
	}
	if prior.Content == nil {
		return "", 0, errors.New("prior content is missing")
	}
	return s.putBlob(prior.Content)
}

// promoteAfter links after/<hash> into blobs/ once its content checks
// out and is synced; false when there is none or it does not check out.
func (s *DiskStore) promoteAfter(hash string, size int64) bool {
	src := filepath.Join(s.dir, aftersName, hash)
	f, err := workspace.Open(src)
	if err != nil {
		return false
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() || fi.Size() != size {
		return false
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil || hex.EncodeToString(h.Sum(nil)) != hash {
		return false
	}
	if f.Sync() != nil {
		return false
	}
	dir := filepath.Join(s.dir, blobsName)
	if err := workspace.Link(src, filepath.Join(dir, hash)); err != nil && !errors.Is(err, fs.ErrExist) {
		return false
	}
	return workspace.SyncDir(dir) == nil
}

// putBlob stores r's bytes under their SHA-256 and returns the hex hash
// and size. Contents already stored are not written twice.
func (s *DiskStore) putBlob(r io.Reader) (string, int64, error) {
	dir := filepath.Join(s.dir, blobsName)
	tmp, err := workspace.CreateTemp(dir)
	if err != nil {
		return "", 0, err
	}
	defer workspace.Remove(tmp.Name()) // a no-op once renamed
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
	if fi, err := workspace.Lstat(final); err == nil && fi.Size() == n {
		return hash, n, nil
	}
	if err := workspace.Rename(tmp.Name(), final); err != nil {
		return "", 0, fmt.Errorf("storing prior content: %w", err)
	}
	workspace.SweepSometimes(dir)
	return hash, n, workspace.SyncDir(dir)
}

// Sweep removes the temp files that writers killed mid-write left in the
// store (see atomicfile.Sweep), and returns how many. A session calls it
// when it starts; later writes sweep now and then on their own.
func (s *DiskStore) Sweep() int {
	return workspace.Sweep(s.dir) + workspace.Sweep(filepath.Join(s.dir, blobsName)) +
		workspace.Sweep(filepath.Join(s.dir, aftersName))
}

// collect removes contents not in live, and temp files a crashed writer
// left behind (writers hold the lock, so none is in progress).
func (s *DiskStore) collect(sub string, live map[string]bool) {
	dir := filepath.Join(s.dir, sub)
	entries, err := workspace.ReadDir(dir)
	if err != nil {
		return
	}
	for _, de := range entries {
		name := de.Name()
		if live[name] || (!strings.HasPrefix(name, tmpPrefix) && !validHash(name)) {
			continue
		}
		workspace.Remove(filepath.Join(dir, name))
	}
}
