package checkpoint

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/indusagi/induscode/internal/atomicfile"
	"github.com/indusagi/induscode/internal/flock"
	"github.com/indusagi/induscode/workspace"
)

// Op is what a rewind does to one file.
type Op uint8

// The rewind operations; the set is closed.
const (
	// Keep: the file is already as recorded.
	Keep Op = iota + 1
	// Restore: the file is rewritten with its recorded content (and
	// mode), created again if it was deleted since.
	Restore
	// Delete: the file did not exist before the node, so it is removed.
	Delete

	// opEnd is one past the last Op: keep it last, so that
	// TestOpsHandled, which loops up to it, sees every new one.
	opEnd
)

// Ops returns every Op; each call returns a new slice.
func Ops() []Op { return []Op{Keep, Restore, Delete} }

func (o Op) String() string {
	switch o {
	case Keep:
		return "keep"
	case Restore:
		return "restore"
	case Delete:
		return "delete"
	}
	return fmt.Sprintf("Op(%d)", uint8(o))
}

// Change is the planned rewind of one file.
type Change struct {
	Path  string
	Op    Op
	Prior Entry // the recorded state the file goes back to
	// Drift is set when the file is not as the last undone node left it:
	// something else changed it since. Apply refuses such a file unless
	// the plan is forced.
	Drift bool
	// Outside is set when the path lies outside every workspace root (a
	// record from elsewhere, or a tampered index): it is neither read nor
	// shown, and Apply refuses it.
	Outside bool

	last          Entry // the entry of the last undone node that touched the file
	current       []byte
	currentExists bool
	prior         []byte
}

// Plan is a worked-out rewind to just before one node: that node and
// every later one are undone, and each file they touched returns to the
// content it had before the earliest of them changed it.
type Plan struct {
	Target  Node     // the node rewound to the start of
	Undone  []Node   // Target and every later node, oldest first
	Changes []Change // one per file, sorted by path
	// Force makes Apply rewind files that drifted (changed since the
	// node left them), throwing those outside changes away.
	Force bool

	store Store
	roots []string
}

// ErrDrift is returned (wrapped) by Apply when files changed since the
// nodes it would undo left them, and the plan is not forced.
var ErrDrift = errors.New("files changed since the checkpoint recorded them")

// LastNode names the newest node wherever a node id is asked for.
const LastNode = "last"

// FindNode returns the position in nodes of the node whose id is id, or
// the only one whose id starts with it (ignoring case); [LastNode] is the
// newest node.
func FindNode(nodes []Node, id string) (int, error) {
	id = strings.TrimSpace(id)
	if id == "" {
		return 0, errors.New("no node given; `indusr rewind list` shows the nodes")
	}
	if id == LastNode {
		if len(nodes) == 0 {
			return 0, errors.New("there are no checkpoint nodes")
		}
		return len(nodes) - 1, nil
	}
	found := -1
	for i, n := range nodes {
		if n.ID == id {
			return i, nil
		}
		if len(id) <= len(n.ID) && strings.EqualFold(n.ID[:len(id)], id) {
			if found >= 0 {
				return 0, fmt.Errorf("node %q is ambiguous: it starts both %s and %s; give more of the id", id, nodes[found].ID, n.ID)
			}
			found = i
		}
	}
	if found < 0 {
		return 0, fmt.Errorf("no checkpoint node %q; `indusr rewind list` shows the nodes", id)
	}
	return found, nil
}

// NewPlan works out the rewind to just before node id (an id or a unique
// prefix of one) from the store's records and the files as they are now.
// Files are read only through the workspace roots (an os.Root each), so
// neither a path outside them nor a symlink swapped in can make the plan
// read, or show, a file outside the workspace.
func NewPlan(s Store, id string, roots []string) (*Plan, error) {
	nodes, err := s.Nodes()
	if err != nil {
		return nil, err
	}
	i, err := FindNode(nodes, id)
	if err != nil {
		return nil, err
	}
	p := &Plan{Target: nodes[i], Undone: nodes[i:], store: s, roots: roots}
	first := make(map[string]Entry)
	last := make(map[string]Entry)
	for _, n := range p.Undone {
		for _, e := range n.Files {
			if _, ok := first[e.Path]; !ok {
				first[e.Path] = e
			}
			last[e.Path] = e
		}
	}
	paths := make([]string, 0, len(first))
	for path := range first {
		paths = append(paths, path)
	}
	slices.Sort(paths)
	for _, path := range paths {
		c, err := planFile(s, roots, first[path], last[path])
		if err != nil {
			return nil, err
		}
		p.Changes = append(p.Changes, c)
	}
	return p, nil
}

func planFile(s Store, roots []string, e, last Entry) (Change, error) {
	c := Change{Path: e.Path, Prior: e, last: last}
	root, rel, ok := within(roots, e.Path)
	if !ok {
		c.Op, c.Outside = Keep, true
		return c, nil
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return c, fmt.Errorf("cannot rewind %s: %w", e.Path, err)
	}
	cur, exists, err := readIn(r, rel)
	r.Close()
	if err != nil {
		return c, fmt.Errorf("cannot rewind %s: %w", e.Path, err)
	}
	c.current, c.currentExists = cur, exists
	switch last.After {
	case "":
		// Recorded by an older version: nothing to compare with.
	case AfterNone:
		c.Drift = exists
	default:
		sum := sha256.Sum256(cur)
		c.Drift = !exists || hex.EncodeToString(sum[:]) != last.After
	}
	if !e.Exists {
		c.Op = Keep
		if c.currentExists {
			c.Op = Delete
		}
		return c, nil
	}
	prior, err := s.Content(e)
	if err != nil {
		return c, fmt.Errorf("cannot rewind %s: %w", e.Path, err)
	}
	c.prior = prior
	c.Op = Restore
	if c.currentExists && bytes.Equal(cur, prior) {
		c.Op = Keep
	}
	return c, nil
}

// Drifted returns the changes whose files something else changed since
// the last undone node left them.
func (p *Plan) Drifted() []Change {
	var out []Change
	for _, c := range p.Changes {
		if c.Drift {
			out = append(out, c)
		}
	}
	return out
}

// DriftDiff shows, file by file, how each drifted file differs from the
// content the last undone node left: the outside changes a forced rewind
// would throw away. When the store no longer has that content it says so.
func (p *Plan) DriftDiff(name func(string) string) string {
	if name == nil {
		name = func(s string) string { return s }
	}
	var sb strings.Builder
	for _, c := range p.Drifted() {
		n := filepath.ToSlash(name(c.Path))
		from, to := "a/"+n, "b/"+n
		if !c.currentExists {
			to = "/dev/null"
		}
		if c.last.After == AfterNone {
			sb.WriteString(Unified("/dev/null", to, nil, c.current))
			continue
		}
		left, err := p.store.AfterContent(c.last)
		if err != nil {
			fmt.Fprintf(&sb, "%s: changed since the checkpoint (the content the checkpoint left is not kept, so no diff can be shown)\n", n)
			continue
		}
		sb.WriteString(Unified(from, to, left, c.current))
	}
	return sb.String()
}

// Diff is a unified diff of what Apply would change, file by file; name
// turns an absolute path into the name shown (nil shows it as is).
func (p *Plan) Diff(name func(string) string) string {
	if name == nil {
		name = func(s string) string { return s }
	}
	var sb strings.Builder
	for _, c := range p.Changes {
		if c.Outside {
			continue
		}
		n := filepath.ToSlash(name(c.Path))
		switch c.Op {
		case Restore:
			from := "a/" + n
			if !c.currentExists {
				from = "/dev/null"
			}
			sb.WriteString(Unified(from, "b/"+n, c.current, c.prior))
		case Delete:
			sb.WriteString(Unified("a/"+n, "/dev/null", c.current, nil))
		}
	}
	return sb.String()
}

// Counts returns how many files the plan restores and deletes.
func (p *Plan) Counts() (restored, deleted int) {
	for _, c := range p.Changes {
		switch c.Op {
		case Restore:
			restored++
		case Delete:
			deleted++
		}
	}
	return restored, deleted
}

// Apply carries out the plan: files are rewritten atomically through the
// workspace root that holds them (so a symlink cannot lead a write out of
// it) and files that did not exist are removed. When every file is done
// the undone nodes are dropped from s; on any failure they are kept, so
// the rewind can be retried.
func (p *Plan) Apply(s Store, roots []string) error {
	var errs []error
	for _, c := range p.Changes {
		if c.Outside {
			errs = append(errs, fmt.Errorf("not rewinding %s: it is outside the workspace (%s)", c.Path, strings.Join(roots, ", ")))
		}
	}
	if d := p.Drifted(); len(d) > 0 && !p.Force {
		names := make([]string, len(d))
		for i, c := range d {
			names[i] = c.Path
		}
		errs = append(errs, fmt.Errorf("%w: %s; nothing was rewound. Look at the diff (--dry-run), then keep those changes or rewind with --force to throw them away",
			ErrDrift, strings.Join(names, ", ")))
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	for _, c := range p.Changes {
		if c.Op == Keep {
			continue
		}
		if err := apply(c, roots); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	ids := make([]string, len(p.Undone))
	for i, n := range p.Undone {
		ids[i] = n.ID
	}
	return s.Drop(ids...)
}

func apply(c Change, roots []string) error {
	root, rel, ok := within(roots, c.Path)
	if !ok {
		return fmt.Errorf("not rewinding %s: it is outside the workspace (%s)", c.Path, strings.Join(roots, ", "))
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return err
	}
	defer r.Close()
	// The file's lock (the one write and edit take) spans the compare
	// and the replacement, so an edit landing in between is not lost.
	real, err := flock.RealPath(c.Path)
	if err != nil {
		return fmt.Errorf("not rewinding %s: %w", c.Path, err)
	}
	held, err := flock.AcquireTarget(workspace.At(root).Locks(), real, workspace.Files{})
	if err != nil {
		return fmt.Errorf("not rewinding %s: %w", c.Path, err)
	}
	defer held.Release()
	cur, exists, err := readIn(r, rel)
	if err != nil {
		return fmt.Errorf("not rewinding %s: %w", c.Path, err)
	}
	if exists != c.currentExists || !bytes.Equal(cur, c.current) {
		return fmt.Errorf("not rewinding %s: it changed since it was read for this rewind; run the rewind again to see the current difference", c.Path)
	}
	switch c.Op {
	case Delete:
		if err := r.Remove(rel); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("deleting %s: %w", c.Path, err)
		}
		return nil
	case Restore:
		if err := atomicfile.WriteInRoot(r, rel, c.prior, c.Prior.Mode, workspace.At(root).Journal()); err != nil {
			return fmt.Errorf("restoring %s: %w", c.Path, err)
		}
		return nil
	}
	return fmt.Errorf("unknown rewind operation %v", c.Op)
}

// within finds the root that lexically holds path.
func within(roots []string, path string) (root, rel string, ok bool) {
	for _, root := range roots {
		rel, err := filepath.Rel(root, path)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue
		}
		return root, rel, true
	}
	return "", "", false
}

// readIn reads rel inside r; exists is false when there is no such file.
func readIn(r *os.Root, rel string) (data []byte, exists bool, err error) {
	if fi, err := r.Stat(rel); err == nil && !fi.Mode().IsRegular() {
		return nil, true, fmt.Errorf("it is %v, not a regular file", fi.Mode().Type())
	}
	data, err = r.ReadFile(rel)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, atomicfile.Bare(err)
	}
	return data, true, nil
}
