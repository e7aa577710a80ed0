package checkpoint

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"slices"
	"time"

	"github.com/oklog/ulid/v2"
)

// Store keeps the prior content of files under nodes. Implementations are
// safe for concurrent use.
type Store interface {
	// Record files prior as what path held before node first changed it.
	// If the store already has (node, path) it reads nothing, changes
	// nothing and returns the existing entry with added false: the first
	// record wins. tool names the tool that made the change.
	Record(node, tool, path string, prior Prior) (e Entry, added bool, err error)
	// Forget drops the record of path under node, for a call that filed
	// it and then changed nothing. A node left without files is removed.
	Forget(node, path string) error
	// Nodes returns every node with its files, oldest first.
	Nodes() ([]Node, error)
	// Content returns the recorded bytes of an entry whose file existed,
	// checked against the entry's hash.
	Content(e Entry) ([]byte, error)
	// Drop removes the nodes with these ids, and every stored content
	// that no remaining node refers to.
	Drop(ids ...string) error
	// Settle records the state the node's call left path in, so a rewind
	// can tell a file changed since (by someone else) from one that is as
	// the node left it. A (node, path) with no record is ignored.
	Settle(node, path string, o Outcome) error
	// AfterContent returns the content an entry's node left, when the
	// store still has it (it keeps it best effort, for showing a drift as
	// a diff), checked against the entry's After hash.
	AfterContent(e Entry) ([]byte, error)
}

// Outcome is the state a call left a file in.
type Outcome struct {
	Exists bool   // false: the call left no file
	Hash   string // hex SHA-256 of the content, when Exists
	// File, when set, is the file (absolute) whose content a store may
	// keep a link to; the store checks it against Hash before showing it.
	File string
}

// AfterNone is the After of an entry whose node left no file.
const AfterNone = "none"

// Prior is the state of a file before a change.
type Prior struct {
	// Exists is false when there was no file; Content and Mode are unused.
	Exists bool
	// Content streams the file's bytes.
	Content io.Reader
	// Mode holds the permission bits to restore.
	Mode fs.FileMode
	// Hash and Size, when Hash is set, are the hex SHA-256 and size the
	// content is known to have (the read gate hashed it): a store that
	// already holds that content need not read Content at all.
	Hash string
	Size int64
}

// Entry is the record of one file under one node.
type Entry struct {
	Path   string      `json:"path"`           // absolute, clean
	Exists bool        `json:"exists"`         // false: the node created the file
	Hash   string      `json:"hash,omitempty"` // hex SHA-256 of the content
	Size   int64       `json:"size,omitempty"`
	Mode   fs.FileMode `json:"mode,omitempty"` // permission bits
	// After is the hex SHA-256 of the content the node left (AfterNone:
	// no file); "" when unknown (records of older versions).
	After string `json:"after,omitempty"`
}

// Node is one rewindable step: the files its calls changed, each with the
// content it had before the step.
type Node struct {
	ID    string    `json:"id"`
	Time  time.Time `json:"time"`  // when its first file was recorded
	Tools []string  `json:"tools"` // the tools that changed files, in order
	Files []Entry   `json:"files"` // in order of first change
}

// File returns the node's entry for path.
func (n *Node) File(path string) (Entry, bool) {
	for _, e := range n.Files {
		if e.Path == path {
			return e, true
		}
	}
	return Entry{}, false
}

// NewNode returns a fresh node id: a ULID, so ids sort by time.
func NewNode() string { return ulid.Make().String() }

type nodeKey struct{}

// WithNode returns a context whose calls record under node. A host that
// groups the calls of one conversation turn into one node sets it.
func WithNode(ctx context.Context, node string) context.Context {
	return context.WithValue(ctx, nodeKey{}, node)
}

// NodeFrom returns the node set by WithNode, if any.
func NodeFrom(ctx context.Context) (string, bool) {
	n, ok := ctx.Value(nodeKey{}).(string)
	return n, ok && n != ""
}

// ErrCorrupt is returned (wrapped) when stored records fail their checks.
var ErrCorrupt = errors.New("checkpoint data is corrupt")

// index is the record of every node; both stores keep one, the disk store
// as its index file.
type index struct {
	Version int    `json:"version"`
	Gen     int64  `json:"gen,omitempty"` // the journal generation that continues it
	Nodes   []Node `json:"nodes"`
}

// indexVersion is the index format this package writes; version 1 (no
// journal) is still read.
const indexVersion = 2

func (x *index) node(id string) *Node {
	for i := range x.Nodes {
		if x.Nodes[i].ID == id {
			return &x.Nodes[i]
		}
	}
	return nil
}

// add records e under node; the caller has checked it is new.
func (x *index) add(node, tool string, e Entry, now time.Time) {
	n := x.node(node)
	if n == nil {
		x.Nodes = append(x.Nodes, Node{ID: node, Time: now.UTC()})
		n = &x.Nodes[len(x.Nodes)-1]
	}
	if !slices.Contains(n.Tools, tool) {
		n.Tools = append(n.Tools, tool)
	}
	n.Files = append(n.Files, e)
}

// upsert replaces the node with n's id by n, or appends n.
func (x *index) upsert(n Node) {
	if old := x.node(n.ID); old != nil {
		*old = n
		return
	}
	x.Nodes = append(x.Nodes, n)
}

// settle sets the After of (node, path); false when there is no record.
func (x *index) settle(node, path, after string) bool {
	n := x.node(node)
	if n == nil {
		return false
	}
	for i := range n.Files {
		if n.Files[i].Path == path {
			changed := n.Files[i].After != after
			n.Files[i].After = after
			return changed
		}
	}
	return false
}

// afters returns every After hash the index refers to.
func (x *index) afters() map[string]bool {
	m := make(map[string]bool)
	for _, n := range x.Nodes {
		for _, e := range n.Files {
			if validHash(e.After) {
				m[e.After] = true
			}
		}
	}
	return m
}

func (x *index) forget(node, path string) {
	n := x.node(node)
	if n == nil {
		return
	}
	n.Files = slices.DeleteFunc(n.Files, func(e Entry) bool { return e.Path == path })
	if len(n.Files) == 0 {
		x.Nodes = slices.DeleteFunc(x.Nodes, func(m Node) bool { return m.ID == node })
	}
}

func (x *index) drop(ids []string) {
	x.Nodes = slices.DeleteFunc(x.Nodes, func(n Node) bool { return slices.Contains(ids, n.ID) })
}

// hashes returns every content hash the index refers to.
func (x *index) hashes() map[string]bool {
	m := make(map[string]bool)
	for _, n := range x.Nodes {
		for _, e := range n.Files {
			if e.Exists {
				m[e.Hash] = true
			}
		}
	}
	return m
}

// check validates an index read from outside: every id non-empty and
// unique, every path absolute and clean, every hash well formed.
func (x *index) check() error {
	if x.Version != indexVersion && x.Version != 1 {
		return fmt.Errorf("%w: index version %d, this build reads version %d", ErrCorrupt, x.Version, indexVersion)
	}
	seen := make(map[string]bool, len(x.Nodes))
	for i, n := range x.Nodes {
		if n.ID == "" || seen[n.ID] {
			return fmt.Errorf("%w: node %d has an empty or repeated id %q", ErrCorrupt, i, n.ID)
		}
		seen[n.ID] = true
		paths := make(map[string]bool, len(n.Files))
		for _, e := range n.Files {
			if !isAbsClean(e.Path) || paths[e.Path] {
				return fmt.Errorf("%w: node %s has a bad or repeated path %q", ErrCorrupt, n.ID, e.Path)
			}
			paths[e.Path] = true
			if e.Exists && !validHash(e.Hash) {
				return fmt.Errorf("%w: node %s, %s: bad content hash %q", ErrCorrupt, n.ID, e.Path, e.Hash)
			}
			if e.After != "" && e.After != AfterNone && !validHash(e.After) {
				return fmt.Errorf("%w: node %s, %s: bad after hash %q", ErrCorrupt, n.ID, e.Path, e.After)
			}
			if e.Size < 0 {
				return fmt.Errorf("%w: node %s, %s: negative size", ErrCorrupt, n.ID, e.Path)
			}
		}
	}
	return nil
}

func validHash(h string) bool {
	if len(h) != 2*sha256.Size {
		return false
	}
	for _, c := range h {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// verifyAfter checks content against an entry's After hash.
func verifyAfter(e Entry, b []byte) error {
	sum := sha256.Sum256(b)
	if hex.EncodeToString(sum[:]) != e.After {
		return fmt.Errorf("the content %s had after the change is no longer kept", e.Path)
	}
	return nil
}

// verify checks content against an entry.
func verify(e Entry, b []byte) error {
	sum := sha256.Sum256(b)
	if int64(len(b)) != e.Size || hex.EncodeToString(sum[:]) != e.Hash {
		return fmt.Errorf("%w: the stored content of %s does not match its record", ErrCorrupt, e.Path)
	}
	return nil
}

func isAbsClean(p string) bool { return filepath.IsAbs(p) && filepath.Clean(p) == p }
