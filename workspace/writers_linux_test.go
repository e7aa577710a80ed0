package workspace_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/indusagi/induscode/bridge/ledger"
	"github.com/indusagi/induscode/deck/cards"
	"github.com/indusagi/induscode/deck/checkpoint"
	"github.com/indusagi/induscode/internal/childlog"
	"github.com/indusagi/induscode/internal/childproc"
	"github.com/indusagi/induscode/workspace"
)

// The writers of the state folder, each with the folder or file a clone
// redirected with a symlink: the writer fails (or, where it is best
// effort, writes nothing), and nothing lands outside the workspace.
func TestWritersKeepToTheWorkspace(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		link  func(workspace.Layout) string // the entry made a symlink to OUT
		write func(ws string) error
	}{
		{"ledger.jsonl", workspace.Layout.Ledger, func(ws string) error {
			f, _, _, err := ledger.OpenFile(workspace.At(ws).Ledger())
			if err == nil {
				f.Close()
			}
			return err
		}},
		{"mcp-logs", workspace.Layout.MCPLogs, func(ws string) error {
			l, err := childlog.Open(workspace.At(ws).MCPLogs(), "srv", "bridge")
			l.Printf("hello")
			l.Close()
			return err
		}},
		{"addon-logs", workspace.Layout.AddonLogs, func(ws string) error {
			l, err := childlog.Open(workspace.At(ws).AddonLogs(), "addon", "host")
			l.Printf("hello")
			l.Close()
			return err
		}},
		{"state folder (memory.md)", workspace.Layout.State, func(ws string) error {
			return cards.NewFileMemory(workspace.At(ws)).Append(context.Background(), "note")
		}},
		{"memory.md", workspace.Layout.Memory, func(ws string) error {
			return cards.NewFileMemory(workspace.At(ws)).Append(context.Background(), "note")
		}},
		{"locks", workspace.Layout.Locks, func(ws string) error {
			return cards.NewFileMemory(workspace.At(ws)).Append(context.Background(), "note")
		}},
		{"plans", workspace.Layout.Plans, func(ws string) error {
			_, err := cards.WritePlan(ws, "# plan\n")
			return err
		}},
		{"checkpoints", workspace.Layout.Checkpoints, func(ws string) error {
			_, _, err := checkpoint.ForWorkspace(ws).Record("n1", "write", filepath.Join(ws, "f"),
				checkpoint.Prior{Exists: true, Content: strings.NewReader("old"), Mode: 0o644})
			return err
		}},
		{"procs", workspace.Layout.Procs, func(ws string) error {
			w := childproc.NewWard(workspace.At(ws).Procs())
			cmd := exec.Command("true")
			w.Prepare(cmd)
			release, err := w.Start(cmd, true)
			if err != nil {
				return err
			}
			cmd.Wait()
			release()
			w.Close()
			return errors.New("best effort") // the record is never reported
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ws, out := t.TempDir(), t.TempDir()
			l := workspace.At(ws)
			link := c.link(l)
			if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
				t.Fatal(err)
			}
			target := out
			if filepath.Ext(link) != "" && link != l.State() {
				target = filepath.Join(out, "f")
			}
			if err := os.Symlink(target, link); err != nil {
				t.Fatal(err)
			}
			err := c.write(ws)
			if err == nil {
				t.Error("the write through a planted link succeeded")
			}
			entries, _ := os.ReadDir(out)
			for _, e := range entries {
				t.Errorf("written outside the workspace: %s", filepath.Join(out, e.Name()))
			}
			if fi, lerr := os.Lstat(link); lerr != nil || fi.Mode()&os.ModeSymlink == 0 {
				t.Errorf("the planted link changed: %v", lerr)
			}
		})
	}
}
