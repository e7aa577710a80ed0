package checkpoint

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/indusagi/induscode/tool"
)

// A rewind puts modified files back, deletes created ones and recreates
// deleted ones, with their modes; a dry run (a plan not applied) changes
// nothing.
func TestRewindRestoresCreatedModifiedAndDeletedFiles(t *testing.T) {
	t.Parallel()
	for name, mk := range map[string]func(dir string) Store{
		"memory": func(string) Store { return NewMemStore() },
		"disk":   func(dir string) Store { return ForWorkspace(dir) },
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			env := tool.NewEnv(dir)
			store := mk(dir)
			w := Wrap(writeTool("write"), store)
			ctx := context.Background()
			path := func(n string) string { return filepath.Join(dir, n) }
			os.WriteFile(path("modified.txt"), []byte("old\nlines\n"), 0o640)
			os.WriteFile(path("deleted.txt"), []byte("keep me"), 0o600)
			os.WriteFile(path("untouched.txt"), []byte("u"), 0o644)

			turn := WithNode(ctx, "n1")
			runTool(turn, t, w, env, map[string]any{"path": "modified.txt", "content": "new\nlines\n"})
			runTool(turn, t, w, env, map[string]any{"path": "dir/created.txt", "content": "fresh"})
			runTool(turn, t, w, env, map[string]any{"path": "deleted.txt", "delete": true})
			os.Chmod(path("modified.txt"), 0o644)

			plan, err := NewPlan(store, "n1", env.Roots)
			if err != nil {
				t.Fatal(err)
			}
			ops := map[string]Op{}
			for _, c := range plan.Changes {
				ops[filepath.Base(c.Path)] = c.Op
			}
			if ops["modified.txt"] != Restore || ops["created.txt"] != Delete || ops["deleted.txt"] != Restore || len(ops) != 3 {
				t.Fatalf("plan: %v", ops)
			}
			diff := plan.Diff(env.Rel)
			for _, want := range []string{
				"--- a/modified.txt\n+++ b/modified.txt\n@@ -1,2 +1,2 @@\n-new\n+old\n lines\n",
				"--- a/dir/created.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-fresh\n\\ No newline at end of file\n",
				"--- /dev/null\n+++ b/deleted.txt\n@@ -0,0 +1 @@\n+keep me\n\\ No newline at end of file\n",
			} {
				if !strings.Contains(diff, want) {
					t.Errorf("diff lacks\n%s\ndiff:\n%s", want, diff)
				}
			}
			// Planning is the dry run: nothing has changed yet.
			if b, _ := os.ReadFile(path("modified.txt")); string(b) != "new\nlines\n" {
				t.Fatalf("planning changed a file")
			}

			if err := plan.Apply(store, env.Roots); err != nil {
				t.Fatal(err)
			}
			check := func(n, want string, mode os.FileMode) {
				t.Helper()
				fi, err := os.Stat(path(n))
				if err != nil {
					t.Errorf("%s: %v", n, err)
					return
				}
				b, _ := os.ReadFile(path(n))
				if string(b) != want || fi.Mode().Perm() != mode {
					t.Errorf("%s: %q %v, want %q %v", n, b, fi.Mode().Perm(), want, mode)
				}
			}
			check("modified.txt", "old\nlines\n", 0o640)
			check("deleted.txt", "keep me", 0o600)
			check("untouched.txt", "u", 0o644)
			if _, err := os.Stat(path("dir/created.txt")); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("created file still there: %v", err)
			}
			if nodes, _ := store.Nodes(); len(nodes) != 0 {
				t.Errorf("rewound nodes stay in the history: %+v", nodes)
			}
			leftovers, _ := filepath.Glob(path(".indusvx-rewind-*"))
			if len(leftovers) != 0 {
				t.Errorf("temp files left: %v", leftovers)
			}
		})
	}
}

// Rewinding to a node undoes it and every later node; earlier nodes stay.
func TestRewindUndoesLaterNodesToo(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	env := tool.NewEnv(dir)
	store := NewMemStore()
	w := Wrap(writeTool("write"), store)
	ctx := context.Background()
	for i, v := range []string{"v1", "v2", "v3"} {
		runTool(WithNode(ctx, "n"+string(rune('1'+i))), t, w, env, map[string]any{"path": "f", "content": v})
	}
	runTool(WithNode(ctx, "n3"), t, w, env, map[string]any{"path": "g", "content": "g"})
	plan, err := NewPlan(store, "n2", env.Roots)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Undone) != 2 || plan.Target.ID != "n2" {
		t.Fatalf("undone %+v", plan.Undone)
	}
	if err := plan.Apply(store, env.Roots); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "f")); string(b) != "v1" {
		t.Errorf("f = %q, want the content before n2", b)
	}
	if _, err := os.Stat(filepath.Join(dir, "g")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("g, created by the later n3, survived")
	}
	nodes, _ := store.Nodes()
	if len(nodes) != 1 || nodes[0].ID != "n1" {
		t.Errorf("history after rewind: %+v", nodes)
	}
}

func TestRewindRefusesPathsOutsideTheRoots(t *testing.T) {
	t.Parallel()
	store := NewMemStore()
	outside := filepath.Join(t.TempDir(), "x")
	os.WriteFile(outside, []byte("now"), 0o644)
	store.Record("n1", "write", outside, prior("then"))
	roots := []string{t.TempDir()}
	plan, err := NewPlan(store, "n1", roots)
	if err != nil {
		t.Fatal(err)
	}
	err = plan.Apply(store, roots)
	if err == nil || !strings.Contains(err.Error(), "outside the workspace") {
		t.Fatalf("apply: %v", err)
	}
	if b, _ := os.ReadFile(outside); string(b) != "now" {
		t.Errorf("a file outside the roots was changed")
	}
	if nodes, _ := store.Nodes(); len(nodes) != 1 {
		t.Errorf("a failed rewind must keep its nodes for a retry")
	}
}

func TestFindNode(t *testing.T) {
	t.Parallel()
	nodes := []Node{{ID: "01ABC"}, {ID: "01ABD"}, {ID: "02XYZ"}}
	for _, c := range []struct {
		id   string
		want int
		err  string
	}{
		{"01ABD", 1, ""},
		{"02", 2, ""},
		{"02xy", 2, ""},
		{"last", 2, ""},
		{"01AB", 0, "ambiguous"},
		{"9", 0, "no checkpoint node"},
		{" ", 0, "no node given"},
	} {
		got, err := FindNode(nodes, c.id)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: err %v, want %q", c.id, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%q: %d %v, want %d", c.id, got, err, c.want)
		}
	}
}

func TestOpsHandled(t *testing.T) {
	t.Parallel()
	for op := Keep; op < opEnd; op++ {
		if strings.HasPrefix(op.String(), "Op(") {
			t.Errorf("op %d has no name", op)
		}
		if !slices.Contains(Ops(), op) {
			t.Errorf("op %s is missing from Ops", op)
		}
	}
}

// A change that lands between planning a rewind and applying it is not
// thrown away: the rewind of that file is refused and the file kept.
func TestRewindRefusesAFileChangedSincePlanned(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name   string
		change func(path string)
	}{
		{"rewritten", func(p string) { os.WriteFile(p, []byte("someone else's work"), 0o644) }},
		{"deleted", func(p string) { os.Remove(p) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			env := tool.NewEnv(dir)
			store := ForWorkspace(dir)
			w := Wrap(writeTool("write"), store)
			path := filepath.Join(dir, "f")
			os.WriteFile(path, []byte("v1"), 0o644)
			runTool(WithNode(context.Background(), "n1"), t, w, env, map[string]any{"path": "f", "content": "v2"})
			plan, err := NewPlan(store, "n1", env.Roots)
			if err != nil {
				t.Fatal(err)
			}
			c.change(path)
			want, _ := os.ReadFile(path)
			err = plan.Apply(store, env.Roots)
			if err == nil || !strings.Contains(err.Error(), "changed since it was read") {
				t.Fatalf("apply: %v, want a refusal", err)
			}
			if got, _ := os.ReadFile(path); string(got) != string(want) {
				t.Errorf("the outside change was overwritten: %q, want %q", got, want)
			}
			if nodes, _ := store.Nodes(); len(nodes) != 1 {
				t.Errorf("a refused rewind must keep its nodes")
			}
		})
	}
}
