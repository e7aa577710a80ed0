package cards

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/indusagi/induscode/internal/flock"
	"github.com/indusagi/induscode/workspace"
)

// FileMemory is a MemoryStore kept in the workspace's memory file
// (.indusvx/memory.md), so it outlives the process. Every change is a
// read-modify-write under an exclusive lock on a file in the workspace's
// locks folder, and the file is replaced atomically, so two processes
// appending at once both land and a reader never sees half a write.
type FileMemory struct {
	path string
	lock string
}

var _ MemoryStore = (*FileMemory)(nil)

// NewFileMemory returns the file-backed store of the workspace l.
func NewFileMemory(l workspace.Layout) *FileMemory {
	return &FileMemory{path: l.Memory(), lock: filepath.Join(l.Locks(), "memory.lock")}
}

// Path is the memory file.
func (m *FileMemory) Path() string { return m.path }

// Read returns the file's text; a missing file is empty memory.
func (m *FileMemory) Read(context.Context) (string, error) {
	b, err := workspace.ReadFile(m.path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	return string(b), err
}

// Replace writes text as the whole memory.
func (m *FileMemory) Replace(_ context.Context, text string) error {
	return m.update(func(string) (string, error) {
		if len(text) > MaxMemory {
			return "", errTooLarge(len(text))
		}
		return text, nil
	})
}

// Append adds text on a line of its own.
func (m *FileMemory) Append(_ context.Context, text string) error {
	return m.update(func(cur string) (string, error) {
		next := appendLine(cur, text)
		if len(next) > MaxMemory {
			return "", errTooLarge(len(next))
		}
		return next, nil
	})
}

func (m *FileMemory) update(change func(cur string) (string, error)) error {
	if err := workspace.MkdirAll(filepath.Dir(m.lock), 0o755); err != nil {
		return fmt.Errorf("creating the locks folder: %w", err)
	}
	if err := workspace.MkdirAll(filepath.Dir(m.path), 0o755); err != nil {
		return fmt.Errorf("creating the state folder: %w", err)
	}
	held, err := flock.AcquireIn(workspace.Files{}, m.lock)
	if err != nil {
		return fmt.Errorf("locking %s: %w", m.lock, err)
	}
	defer held.Release()
	cur, err := m.Read(context.Background())
	if err != nil {
		return fmt.Errorf("reading %s: %w", m.path, err)
	}
	next, err := change(cur)
	if err != nil {
		return err
	}
	if err := workspace.WriteFile(m.path, []byte(next), 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", m.path, err)
	}
	return nil
}
