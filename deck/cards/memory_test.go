package cards

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/indusagi/induscode/tool"
	"github.com/indusagi/induscode/workspace"
)

func TestMemoryCard(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tc := range []struct {
		name  string
		store func() MemoryStore
	}{
		{"in-process default", func() MemoryStore { return nil }},
		{"file", func() MemoryStore { return NewFileMemory(workspace.At(dir)) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := tool.NewEnv(t.TempDir())
			card := Memory(tc.store())
			steps := []struct {
				in    map[string]any
				isErr bool
				want  string
			}{
				{map[string]any{"action": "read"}, false, "Memory is empty."},
				{map[string]any{"action": "append", "text": "uses Go 1.26"}, false, "Note appended"},
				{map[string]any{"action": "append", "text": "tests need CI=true"}, false, "Note appended"},
				{map[string]any{"action": "read"}, false, "uses Go 1.26\ntests need CI=true"},
				{map[string]any{"action": "replace", "text": "summary"}, false, "Memory replaced (7 bytes)."},
				{map[string]any{"action": "read"}, false, "summary"},
				{map[string]any{"action": "replace"}, true, "needs text"},
				{map[string]any{"action": "append", "text": "  "}, true, "needs text"},
				{map[string]any{"action": "append", "text": strings.Repeat("x", MaxMemory)}, true, "over the 65536-byte limit"},
				{map[string]any{"action": "forget"}, true, "field action"},
				{map[string]any{"action": "read"}, false, "summary"},
				{map[string]any{"action": "replace", "text": ""}, false, "Memory replaced (0 bytes)."},
				{map[string]any{"action": "read"}, false, "Memory is empty."},
			}
			for i, s := range steps {
				r := run(t, card, env, s.in)
				if r.IsError != s.isErr || !strings.Contains(text(r), s.want) {
					t.Fatalf("step %d %v: is_error=%v %q; want is_error=%v and %q", i, s.in, r.IsError, text(r), s.isErr, s.want)
				}
			}
		})
	}
}

// Without a store each session has its own memory.
func TestMemoryDefaultIsPerSession(t *testing.T) {
	t.Parallel()
	card := Memory(nil)
	a, b := tool.NewEnv(t.TempDir()), tool.NewEnv(t.TempDir())
	run(t, card, a, map[string]any{"action": "append", "text": "secret of a"})
	if got := text(run(t, card, b, map[string]any{"action": "read"})); got != "Memory is empty." {
		t.Errorf("session b reads %q", got)
	}
}

func TestFileMemorySurvivesRestart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ctx := context.Background()
	if err := NewFileMemory(workspace.At(dir)).Append(ctx, "remember me"); err != nil {
		t.Fatal(err)
	}
	// A new store, as after a restart, reads what the old one wrote.
	m := NewFileMemory(workspace.At(dir))
	if got, err := m.Read(ctx); err != nil || got != "remember me" {
		t.Errorf("after restart: %q, %v", got, err)
	}
	if m.Path() != filepath.Join(dir, ".indusvx", "memory.md") {
		t.Errorf("memory file at %s", m.Path())
	}
	if b, err := os.ReadFile(filepath.Join(dir, ".indusvx", ".gitignore")); err != nil || !strings.Contains(string(b), "*") {
		t.Errorf("state folder lacks its .gitignore: %v", err)
	}
}

// Two writers (two stores on one file, each taking the file lock, as two
// processes would) appending at once lose nothing.
func TestFileMemoryTwoWriters(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const per = 40
	var wg sync.WaitGroup
	for w := range 2 {
		wg.Go(func() {
			m := NewFileMemory(workspace.At(dir))
			for i := range per {
				if err := m.Append(context.Background(), fmt.Sprintf("writer %d note %d", w, i)); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	got, _ := NewFileMemory(workspace.At(dir)).Read(context.Background())
	lines := strings.Split(got, "\n")
	if len(lines) != 2*per {
		t.Fatalf("%d lines after %d appends:\n%s", len(lines), 2*per, got)
	}
	for w := range 2 {
		for i := range per {
			if !strings.Contains(got, fmt.Sprintf("writer %d note %d\n", w, i)) && !strings.HasSuffix(got, fmt.Sprintf("writer %d note %d", w, i)) {
				t.Errorf("lost writer %d note %d", w, i)
			}
		}
	}
}
