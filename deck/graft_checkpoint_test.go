package deck_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/indusagi/induscode/deck"
	"github.com/indusagi/induscode/deck/checkpoint"
	"github.com/indusagi/induscode/tool"
)

// stamp is a grafted tool (as an addon might add) that overwrites the
// file its "file" input names and says so through tool.FileChanger.
func stamp(t *testing.T) tool.Tool {
	type in struct {
		File string `json:"file"`
	}
	return tool.Must(tool.New(tool.Spec{Name: "stamp"}, func(_ context.Context, in in, env *tool.Env) tool.Result {
		p, err := env.Resolve(in.File)
		if err != nil {
			return tool.Errorf("%v", err)
		}
		if err := os.WriteFile(p, []byte("stamped"), 0o644); err != nil {
			return tool.Errorf("%v", err)
		}
		return tool.Text("stamped")
	}, tool.ChangesFiles(func(args json.RawMessage) ([]string, error) {
		var v in
		err := json.Unmarshal(args, &v)
		return []string{v.File}, err
	})))
}

// TestGraftedFileChangerIsCheckpointed: a grafted tool that says which
// files it changes can be rewound like write and edit.
func TestGraftedFileChangerIsCheckpointed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	store := checkpoint.NewMemStore()
	d, err := deck.Provision(deck.Authoring, deck.Setup{Dir: dir, Framework: deck.Framework{Checkpoints: store}})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := d.Graft(stamp(t)); err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(f, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := checkpoint.WithNode(context.Background(), "n1")
	if r := d.Box().Run(ctx, "stamp", json.RawMessage(`{"file":"notes.txt"}`)); r.IsError {
		t.Fatalf("stamp: %v", r)
	}
	plan, err := checkpoint.NewPlan(store, "n1", d.Env().Roots)
	if err != nil {
		t.Fatalf("the grafted tool's change was not checkpointed: %v", err)
	}
	if err := plan.Apply(store, d.Env().Roots); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(f); string(b) != "mine" {
		t.Errorf("after rewind notes.txt = %q, want %q", b, "mine")
	}
}
