package checkpoint

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"

	"github.com/indusagi/induscode/internal/flock"
	"github.com/indusagi/induscode/tool"
)

// MaxPriorBytes is the largest prior content the wrapper files: the
// largest file write and edit change (files.MaxEditBytes, 32 MiB). A
// larger file is not read, so a call the tool is about to refuse for its
// size costs a stat, not a copy of gigabytes.
const MaxPriorBytes = 32 << 20

// Wrap returns t wrapped so that, before each call, the current content of
// every file the call will change (as t, a [tool.FileChanger], says) is
// filed in s. The wrapper's Spec is t's, unchanged. When s is nil, or t
// cannot say which files it changes (bash cannot: what a shell command
// changes is not known before it runs), Wrap returns t itself. The wrapper
// is not a FileChanger, so wrapping twice files nothing twice.
func Wrap(t tool.Tool, s Store) tool.Tool {
	fc, ok := t.(tool.FileChanger)
	if s == nil || !ok {
		return t
	}
	return &wrapped{inner: fc, store: s}
}

// wrapped is a checkpointing tool.
type wrapped struct {
	inner tool.FileChanger
	store Store
}

var _ tool.Tool = (*wrapped)(nil)

// Spec returns the inner tool's spec: the wrapper is invisible to the model.
func (w *wrapped) Spec() tool.Spec { return w.inner.Spec() }

// Unwrap returns the inner tool.
func (w *wrapped) Unwrap() tool.Tool { return w.inner }

// Run records the prior state of each target, runs the inner tool, and
// takes a record back when the call failed without touching its file, so
// a refused call leaves no node behind. Recording is best effort: when the
// prior content cannot be read or stored the call still runs, and the
// result says that this change cannot be rewound.
func (w *wrapped) Run(ctx context.Context, input json.RawMessage, env *tool.Env) tool.Result {
	paths := w.targets(input, env)
	if len(paths) == 0 {
		return w.inner.Run(ctx, input, env)
	}
	node, ok := NodeFrom(ctx)
	if !ok {
		node = NewNode()
	}
	name := tool.NameOf(w.inner)
	type filed struct {
		path  string
		entry Entry
		added bool
		err   error
	}
	files := make([]filed, len(paths))
	for i, p := range paths {
		files[i].path = p
		files[i].entry, files[i].added, files[i].err = w.record(node, name, p, env)
	}
	res := w.inner.Run(ctx, input, env)
	for _, f := range files {
		switch {
		case f.err != nil && !res.IsError:
			res.Blocks = append(res.Blocks, tool.TextBlock(fmt.Sprintf(
				"Note: the earlier content of %s was not checkpointed (%v), so this change cannot be rewound.", env.Rel(f.path), f.err)))
		case f.err != nil:
			// a refused call changed nothing: no note needed
		case res.IsError:
			if f.added && unchanged(f.path, f.entry) {
				_ = w.store.Forget(node, f.path) // best effort: a leftover record restores the same content
			}
		default:
			w.settle(node, f.path, env)
		}
	}
	return res
}

// settle records what the call left at path, so a rewind can tell later
// outside changes from the node's own. The hash the tool left in the
// session's read state is used when size and time still match (no need
// to read the file again); otherwise the file is hashed. Best effort: a
// file it cannot tell about stays "unknown", which a rewind does not
// check.
func (w *wrapped) settle(node, path string, env *tool.Env) {
	root, rel, err := env.WorkspaceRoot(path)
	if err != nil {
		return
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return
	}
	defer r.Close()
	fi, err := r.Lstat(rel)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		_ = w.store.Settle(node, path, Outcome{})
		return
	case err != nil || !fi.Mode().IsRegular():
		return
	}
	var hash string
	if real, err := flock.RealPath(path); err == nil {
		if rec, ok := env.Reads.Lookup(real); ok && rec.Size == fi.Size() && rec.ModTime.Equal(fi.ModTime()) {
			hash = hex.EncodeToString(rec.Hash[:])
		}
	}
	if hash == "" {
		f, err := r.Open(rel)
		if err != nil {
			return
		}
		h := sha256.New()
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			return
		}
		hash = hex.EncodeToString(h.Sum(nil))
	}
	_ = w.store.Settle(node, path, Outcome{Exists: true, Hash: hash, File: path})
}

// record files the current state of path. A target the inner tool will
// refuse anyway (outside the workspace, through a symlink leading out of
// it, a directory) is not recorded and is no error.
func (w *wrapped) record(node, name, path string, env *tool.Env) (Entry, bool, error) {
	root, rel, err := env.WorkspaceRoot(path)
	if err != nil {
		return Entry{}, false, nil // the inner tool refuses it
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return Entry{}, false, nil
	}
	defer r.Close()
	// Stat before opening: opening a named pipe for reading blocks until
	// a writer comes, which would hang the call before the tool refuses it.
	// Stat before reading, too: a file over MaxPriorBytes is not read at
	// all (the tools refuse to change one that large anyway).
	if fi, err := r.Stat(rel); err == nil && !fi.Mode().IsRegular() {
		return Entry{}, false, nil
	} else if err == nil && fi.Size() > MaxPriorBytes {
		return Entry{}, false, fmt.Errorf("it is %d bytes, over the %d MiB a checkpoint keeps", fi.Size(), MaxPriorBytes>>20)
	}
	f, err := r.Open(rel)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return w.store.Record(node, name, path, Prior{})
	case errors.Is(err, fs.ErrPermission):
		return Entry{}, false, err // the inner tool may still manage to write
	case err != nil:
		return Entry{}, false, nil
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return Entry{}, false, err
	}
	if !fi.Mode().IsRegular() {
		return Entry{}, false, nil
	}
	prior := Prior{Exists: true, Content: f, Mode: fi.Mode()}
	// The read gate hashed the file when the session read it: with that
	// hash the store can skip content it already holds. Should the file
	// have changed since, the tool refuses the call and the record goes.
	if real, err := flock.RealPath(path); err == nil {
		if rec, ok := env.Reads.Lookup(real); ok && rec.Size == fi.Size() {
			prior.Hash, prior.Size = hex.EncodeToString(rec.Hash[:]), rec.Size
		}
	}
	return w.store.Record(node, name, path, prior)
}

// targets asks the inner tool which files the call changes and resolves
// them, dropping duplicates. Paths it cannot name or resolve are left to
// the inner tool, which reports them.
func (w *wrapped) targets(input json.RawMessage, env *tool.Env) []string {
	named, err := w.inner.ChangedPaths(input)
	if err != nil {
		return nil
	}
	var out []string
	for _, n := range named {
		if n == "" {
			continue
		}
		p, err := env.Resolve(n)
		if err != nil || slices.Contains(out, p) {
			continue
		}
		out = append(out, p)
	}
	return out
}

// unchanged reports whether path still matches its recorded prior state.
func unchanged(path string, e Entry) bool {
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		return false // never open a pipe or device: that may block
	}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return !e.Exists
	}
	if err != nil || !e.Exists {
		return false
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || fi.Size() != e.Size {
		return false
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return false
	}
	return hex.EncodeToString(h.Sum(nil)) == e.Hash
}
