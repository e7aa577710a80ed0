package checkpoint

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/indusagi/induscode/workspace"
)

// The disk store's index is a snapshot (index.json, replaced atomically)
// plus a journal (journal.jsonl) of the nodes changed since: a record
// appends one line and syncs it instead of rewriting every node. The
// journal's first line names the snapshot generation it continues; when
// the journal outgrows the snapshot (and compactBytes) the two are folded
// into a new snapshot of the next generation, and a fresh journal. A
// crash between the two leaves a journal of the old generation, which is
// then ignored: the new snapshot already holds it. A torn last line (a
// crash mid-append) is ignored, and cut off by the next append.
const (
	journalName = "journal.jsonl"
	// compactBytes is the journal size below which it is never folded:
	// a few hundred records, so that compaction stays rare.
	compactBytes = 256 << 10
)

// journalHead is the first line of a journal.
type journalHead struct {
	Gen int64 `json:"gen"`
}

// journalLine is one change: a node's new state, or the id of a node that
// is gone.
type journalLine struct {
	Node *Node  `json:"node,omitempty"`
	Drop string `json:"drop,omitempty"`
}

// state is the index as loaded, with what an append needs to know.
type state struct {
	x         index
	snapBytes int64 // size of index.json
	jBytes    int64 // size of the journal's valid part (0: no journal of this generation)
	jSize     int64 // size of the journal file as found
}

func (s *DiskStore) load() (state, error) {
	var st state
	path := filepath.Join(s.dir, indexName)
	data, err := workspace.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		st.x = index{Version: indexVersion}
	case err != nil:
		return state{}, fmt.Errorf("reading the checkpoint index: %w", err)
	default:
		if st.x, err = parseIndex(data, s.base); err != nil {
			return state{}, fmt.Errorf("%s: %w; move it aside to start a fresh history", path, err)
		}
		st.snapBytes = int64(len(data))
	}
	jpath := filepath.Join(s.dir, journalName)
	j, err := workspace.ReadFile(jpath)
	if errors.Is(err, fs.ErrNotExist) {
		return st, nil
	}
	if err != nil {
		return state{}, fmt.Errorf("reading the checkpoint journal: %w", err)
	}
	st.jSize = int64(len(j))
	first, rest, ok := bytes.Cut(j, []byte{'\n'})
	var head journalHead
	if !ok || json.Unmarshal(first, &head) != nil || head.Gen != st.x.Gen {
		return st, nil // a stale or torn journal: the snapshot holds it all
	}
	valid := int64(len(first) + 1)
	for len(rest) > 0 {
		line, more, ok := bytes.Cut(rest, []byte{'\n'})
		if !ok {
			break // torn last line
		}
		var l journalLine
		if err := json.Unmarshal(line, &l); err != nil {
			break // torn: nothing after it was synced before it
		}
		if l.Node != nil {
			if err := s.absPaths(l.Node); err != nil {
				return state{}, fmt.Errorf("%s: %w; move it aside to start a fresh history", jpath, err)
			}
			st.x.upsert(*l.Node)
		} else {
			st.x.drop([]string{l.Drop})
		}
		valid += int64(len(line) + 1)
		rest = more
	}
	if err := st.x.check(); err != nil {
		return state{}, fmt.Errorf("%s: %w; move it aside to start a fresh history", jpath, err)
	}
	st.jBytes = valid
	return st, nil
}

// save appends the state of the touched nodes to the journal, folding it
// into a new snapshot when it has grown large.
func (s *DiskStore) save(st *state, touched []string, durable bool) error {
	var buf bytes.Buffer
	for _, id := range touched {
		l := journalLine{Drop: id}
		if n := st.x.node(id); n != nil {
			c := cloneNodes([]Node{*n})[0]
			s.relPaths(&c)
			l = journalLine{Node: &c}
		}
		b, err := json.Marshal(l)
		if err != nil {
			return err
		}
		buf.Write(b)
		buf.WriteByte('\n')
	}
	limit := int64(compactBytes)
	if s.compactAt > 0 {
		limit = s.compactAt
	}
	if st.jBytes+int64(buf.Len()) > max(limit, st.snapBytes) {
		return s.compact(st)
	}
	if err := s.appendJournal(st, buf.Bytes(), durable); err != nil {
		return fmt.Errorf("saving the checkpoint journal: %w", err)
	}
	return nil
}

func (s *DiskStore) appendJournal(st *state, lines []byte, durable bool) error {
	jpath := filepath.Join(s.dir, journalName)
	if st.jBytes == 0 {
		// No journal of this generation yet: start one, atomically.
		head, _ := json.Marshal(journalHead{Gen: st.x.Gen})
		return workspace.WriteFile(jpath, append(append(head, '\n'), lines...), 0o644)
	}
	f, err := workspace.OpenFile(jpath, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	if st.jSize != st.jBytes {
		if err := f.Truncate(st.jBytes); err != nil { // cut off a torn line
			return err
		}
	}
	if _, err := f.WriteAt(lines, st.jBytes); err != nil {
		return err
	}
	if !durable {
		return nil
	}
	return f.Sync()
}

// compact writes the whole index as a snapshot of the next generation and
// starts an empty journal for it.
func (s *DiskStore) compact(st *state) error {
	st.x.Version = indexVersion
	st.x.Gen++
	data, err := s.encode(st.x)
	if err != nil {
		return err
	}
	if err := workspace.WriteFile(filepath.Join(s.dir, indexName), append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("saving the checkpoint index: %w", err)
	}
	head, _ := json.Marshal(journalHead{Gen: st.x.Gen})
	if err := workspace.WriteFile(filepath.Join(s.dir, journalName), append(head, '\n'), 0o644); err != nil {
		return fmt.Errorf("starting the checkpoint journal: %w", err)
	}
	return nil
}

// relPaths makes the paths of n under base relative to it.
func (s *DiskStore) relPaths(n *Node) {
	if s.base == "" {
		return
	}
	for j, e := range n.Files {
		if rel, err := filepath.Rel(s.base, e.Path); err == nil && rel != "." && rel != ".." &&
			!strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			n.Files[j].Path = filepath.ToSlash(rel)
		}
	}
}

// absPaths joins the relative paths of n to base; they must stay inside.
func (s *DiskStore) absPaths(n *Node) error { return absPaths(n, s.base) }

func absPaths(n *Node, base string) error {
	for j, e := range n.Files {
		if e.Path == "" || filepath.IsAbs(e.Path) {
			continue
		}
		rel := filepath.FromSlash(e.Path)
		if base == "" || !filepath.IsLocal(rel) {
			return fmt.Errorf("%w: node %s has a relative path %q that cannot be placed", ErrCorrupt, n.ID, e.Path)
		}
		n.Files[j].Path = filepath.Join(base, rel)
	}
	return nil
}

// encode renders the snapshot file, paths under base made relative.
func (s *DiskStore) encode(x index) ([]byte, error) {
	x.Nodes = cloneNodes(x.Nodes)
	for i := range x.Nodes {
		s.relPaths(&x.Nodes[i])
	}
	return json.MarshalIndent(&x, "", " ")
}

// parseIndex decodes and checks a snapshot file; relative paths, which
// must stay inside base, are joined to it.
func parseIndex(data []byte, base string) (index, error) {
	var x index
	if err := json.Unmarshal(data, &x); err != nil {
		return index{}, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	for i := range x.Nodes {
		if err := absPaths(&x.Nodes[i], base); err != nil {
			return index{}, err
		}
	}
	if err := x.check(); err != nil {
		return index{}, err
	}
	return x, nil
}
