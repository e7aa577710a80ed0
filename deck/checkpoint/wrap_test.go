package checkpoint

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/indusagi/induscode/tool"
)

// changesPath makes a stand-in tool a tool.FileChanger: a call changes
// the file its "path" names.
type changesPath struct{ *tool.Func }

func (changesPath) ChangedPaths(args json.RawMessage) ([]string, error) {
	var in struct{ Path string }
	err := json.Unmarshal(args, &in)
	return []string{in.Path}, err
}

// writeTool is a stand-in for the real write tool: {path, content, fail}
// writes content to path (creating directories), or, with fail, refuses
// without touching anything; "delete": true removes the file instead.
func writeTool(name string) tool.Tool { return changesPath{plainWriteTool(name)} }

// plainWriteTool is writeTool without a word on which files it changes.
func plainWriteTool(name string) *tool.Func {
	return &tool.Func{
		S: tool.Spec{Name: name, Label: "Write file (test)", Description: "test " + name,
			InputSchema: json.RawMessage(`{"type":"object"}`)},
		Fn: func(_ context.Context, input json.RawMessage, env *tool.Env) tool.Result {
			var in struct {
				Path    string `json:"path"`
				Content string `json:"content"`
				Fail    bool   `json:"fail"`
				Partial bool   `json:"partial"`
				Delete  bool   `json:"delete"`
			}
			if err := json.Unmarshal(input, &in); err != nil {
				return tool.Errorf("bad input: %v", err)
			}
			p, err := env.Resolve(in.Path)
			if err != nil {
				return tool.Errorf("%v", err)
			}
			if _, _, err := env.WorkspaceRoot(p); err != nil {
				return tool.Errorf("%v", err)
			}
			if in.Fail {
				if in.Partial {
					os.WriteFile(p, []byte("half-written"), 0o644)
				}
				return tool.Errorf("refused")
			}
			if in.Delete {
				os.Remove(p)
				return tool.Text("deleted")
			}
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := os.WriteFile(p, []byte(in.Content), 0o644); err != nil {
				return tool.Errorf("%v", err)
			}
			return tool.Text("wrote " + in.Path)
		},
	}
}

func runTool(ctx context.Context, t *testing.T, tl tool.Tool, env *tool.Env, in map[string]any) tool.Result {
	t.Helper()
	raw, _ := json.Marshal(in)
	return tl.Run(ctx, raw, env)
}

func TestWrapIdentityWithoutStore(t *testing.T) {
	t.Parallel()
	w := writeTool("write")
	if got := Wrap(w, nil); got != w {
		t.Errorf("Wrap with no store returned a different tool")
	}
	// The name does not matter: what matters is whether the tool can say
	// which files a call changes.
	silent := plainWriteTool("write")
	if got := Wrap(silent, NewMemStore()); got != silent {
		t.Errorf("Wrap of a tool that is not a tool.FileChanger returned a different tool")
	}
	for _, name := range []string{"write", "edit", "notes_save"} {
		inner := writeTool(name)
		wrapped := Wrap(inner, NewMemStore())
		if wrapped == inner {
			t.Errorf("%s was not wrapped", name)
		}
		ws, is := wrapped.Spec(), inner.Spec()
		if ws.Name != is.Name || ws.Label != is.Label || ws.Description != is.Description ||
			string(ws.InputSchema) != string(is.InputSchema) || ws.ReadOnly != is.ReadOnly {
			t.Errorf("%s: the wrapper changed the spec: %+v", name, ws)
		}
		if u, ok := wrapped.(interface{ Unwrap() tool.Tool }); !ok || u.Unwrap() != inner {
			t.Errorf("%s: Unwrap does not return the inner tool", name)
		}
		if again := Wrap(wrapped, NewMemStore()); again != wrapped {
			t.Errorf("%s: wrapping a wrapped tool wrapped it again (each change would be filed twice)", name)
		}
	}
}

func TestWrapRecordsBeforeTheToolRuns(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	env := tool.NewEnv(dir)
	store := NewMemStore()
	w := Wrap(writeTool("write"), store)
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("before"), 0o600)
	ctx := context.Background()

	// Each call without a named node is its own node.
	runTool(ctx, t, w, env, map[string]any{"path": "a.txt", "content": "after"})
	runTool(ctx, t, w, env, map[string]any{"path": "@new/b.txt", "content": "b"})
	nodes, _ := store.Nodes()
	if len(nodes) != 2 {
		t.Fatalf("want 2 nodes, got %+v", nodes)
	}
	a := nodes[0].Files[0]
	if a.Path != filepath.Join(dir, "a.txt") || !a.Exists || a.Mode != 0o600 {
		t.Errorf("a.txt entry: %+v", a)
	}
	if b, _ := store.Content(a); string(b) != "before" {
		t.Errorf("a.txt prior content %q", b)
	}
	if b := nodes[1].Files[0]; b.Path != filepath.Join(dir, "new", "b.txt") || b.Exists {
		t.Errorf("new file entry: %+v", b)
	}

	// Calls in one named node: the first state wins.
	turn := WithNode(ctx, "turn-1")
	runTool(turn, t, w, env, map[string]any{"path": "a.txt", "content": "third"})
	runTool(turn, t, w, env, map[string]any{"path": "a.txt", "content": "fourth"})
	nodes, _ = store.Nodes()
	last := nodes[len(nodes)-1]
	if last.ID != "turn-1" || len(last.Files) != 1 {
		t.Fatalf("named node: %+v", last)
	}
	if b, _ := store.Content(last.Files[0]); string(b) != "after" {
		t.Errorf("named node kept %q, want the content before its first change", b)
	}
}

func TestWrapLeavesNoNodeForARefusedCall(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	env := tool.NewEnv(dir)
	store := NewMemStore()
	w := Wrap(writeTool("edit"), store)
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("same"), 0o644)
	ctx := context.Background()

	if r := runTool(ctx, t, w, env, map[string]any{"path": "a.txt", "fail": true}); !r.IsError {
		t.Fatal("the test tool should fail")
	}
	runTool(ctx, t, w, env, map[string]any{"path": "missing.txt", "fail": true})
	if nodes, _ := store.Nodes(); len(nodes) != 0 {
		t.Errorf("refused calls that changed nothing left nodes: %+v", nodes)
	}
	// A call that failed after changing the file keeps its record.
	runTool(ctx, t, w, env, map[string]any{"path": "a.txt", "fail": true, "partial": true})
	if nodes, _ := store.Nodes(); len(nodes) != 1 {
		t.Errorf("a failed call that changed the file must stay rewindable: %+v", nodes)
	}
}

func TestWrapSkipsWhatTheToolRefuses(t *testing.T) {
	t.Parallel()
	dir, outside := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(outside, "secret"), []byte("s"), 0o644)
	os.Symlink(outside, filepath.Join(dir, "link"))
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	env := tool.NewEnv(dir)
	store := &spyStore{Store: NewMemStore()}
	w := Wrap(writeTool("write"), store)
	ctx := context.Background()
	for _, in := range []map[string]any{
		{"path": filepath.Join(outside, "secret"), "content": "x"}, // outside the workspace
		{"path": "link/secret", "content": "x", "fail": true},      // through a symlink out of it
		{"path": "sub", "content": "x", "fail": true},              // a directory
		{"content": "x", "fail": true},                             // no path
		{"path": 3},                                                // not a string
	} {
		runTool(ctx, t, w, env, in)
	}
	if store.records != 0 {
		t.Errorf("recorded %d targets the tool refuses", store.records)
	}
}

// spyStore counts Record calls.
type spyStore struct {
	Store
	records int
}

func (s *spyStore) Record(node, tool, path string, p Prior) (Entry, bool, error) {
	s.records++
	return s.Store.Record(node, tool, path, p)
}

// A store that cannot record does not stop the change; the result says it
// cannot be rewound.
func TestWrapNotesARecordFailure(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	blocked := filepath.Join(t.TempDir(), "file")
	os.WriteFile(blocked, nil, 0o644) // a file where the store wants a directory
	env := tool.NewEnv(dir)
	w := Wrap(writeTool("write"), NewDiskStore(filepath.Join(blocked, "cp")))
	r := runTool(context.Background(), t, w, env, map[string]any{"path": "a.txt", "content": "x"})
	if r.IsError {
		t.Fatalf("the write should still run: %s", r.PlainText())
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "x" {
		t.Errorf("file not written")
	}
	if !strings.Contains(r.PlainText(), "was not checkpointed") || !strings.Contains(r.PlainText(), "cannot be rewound") {
		t.Errorf("no note in %q", r.PlainText())
	}
}

// moveTool is a tool no name list knows: it moves one file to another
// path and says so, as a grafted or addon tool might.
type moveTool struct{ *tool.Func }

func (moveTool) ChangedPaths(args json.RawMessage) ([]string, error) {
	var in struct{ From, To string }
	err := json.Unmarshal(args, &in)
	return []string{in.From, in.To, in.From}, err
}

func newMoveTool() tool.Tool {
	return moveTool{&tool.Func{
		S: tool.Spec{Name: "notes_move", InputSchema: json.RawMessage(`{"type":"object"}`)},
		Fn: func(_ context.Context, input json.RawMessage, env *tool.Env) tool.Result {
			var in struct{ From, To string }
			json.Unmarshal(input, &in)
			from, _ := env.Resolve(in.From)
			to, _ := env.Resolve(in.To)
			if err := os.Rename(from, to); err != nil {
				return tool.Errorf("%v", err)
			}
			return tool.Text("moved")
		},
	}}
}

// TestWrapCheckpointsAnyFileChanger: a tool outside the catalog that says
// which files it changes is checkpointed like write, every file it names
// (once each), and a rewind puts both files back.
func TestWrapCheckpointsAnyFileChanger(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	env := tool.NewEnv(dir)
	store := NewMemStore()
	w := Wrap(newMoveTool(), store)
	if err := os.WriteFile(filepath.Join(dir, "a.md"), []byte("notes"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "b.md"), []byte("older notes"), 0o644)
	if r := runTool(WithNode(context.Background(), "n1"), t, w, env, map[string]any{"from": "a.md", "to": "b.md"}); r.IsError {
		t.Fatalf("move: %v", r)
	}
	nodes, err := store.Nodes()
	if err != nil || len(nodes) != 1 || len(nodes[0].Files) != 2 {
		t.Fatalf("nodes %+v (%v), want one node filing a.md and b.md once each", nodes, err)
	}
	plan, err := NewPlan(store, "n1", env.Roots)
	if err != nil {
		t.Fatal(err)
	}
	if err := plan.Apply(store, env.Roots); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"a.md": "notes", "b.md": "older notes"} {
		if b, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(b) != want {
			t.Errorf("%s after rewind = %q (%v), want %q", name, b, err, want)
		}
	}
}
