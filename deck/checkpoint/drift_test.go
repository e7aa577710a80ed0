package checkpoint

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/indusagi/induscode/tool"
)

// A rewind compares each file with what the last undone node left: a file
// changed since by something else is refused (its drift shown as a diff)
// unless the plan is forced; an untouched file is rewound as before.
func TestRewindRefusesDriftUnlessForced(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name      string
		outside   func(path string) // the change made by someone else; nil: none
		drift     bool
		driftDiff []string
	}{
		{"untouched", nil, false, nil},
		{"checked out to an older version", func(p string) { os.WriteFile(p, []byte("v0\n"), 0o644) }, true, []string{"-v2", "+v0"}},
		{"edited in place", func(p string) {
			f, _ := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
			f.WriteString("mine\n")
			f.Close()
		}, true, []string{" v2", "+mine"}},
		{"deleted", func(p string) { os.Remove(p) }, true, []string{"-v2", "+++ /dev/null"}},
	}
	for _, store := range []string{"memory", "disk"} {
		for _, c := range cases {
			for _, force := range []bool{false, true} {
				t.Run(store+"/"+c.name+map[bool]string{true: "/forced"}[force], func(t *testing.T) {
					t.Parallel()
					dir := t.TempDir()
					env := tool.NewEnv(dir)
					var s Store = NewMemStore()
					if store == "disk" {
						s = ForWorkspace(dir)
					}
					w := Wrap(writeTool("write"), s)
					path := filepath.Join(dir, "f")
					for i, v := range []string{"v0\n", "v1\n", "v2\n"} {
						runTool(WithNode(context.Background(), "n"+string(rune('0'+i))), t, w, env, map[string]any{"path": "f", "content": v})
					}
					if c.outside != nil {
						c.outside(path)
					}
					before, _ := os.ReadFile(path)
					plan, err := NewPlan(s, "n2", env.Roots)
					if err != nil {
						t.Fatal(err)
					}
					if got := len(plan.Drifted()) == 1; got != c.drift {
						t.Fatalf("drifted: %v, want %v", plan.Drifted(), c.drift)
					}
					diff := plan.DriftDiff(env.Rel)
					for _, want := range c.driftDiff {
						if !strings.Contains(diff, "\n"+want+"\n") {
							t.Errorf("drift diff lacks %q:\n%s", want, diff)
						}
					}
					plan.Force = force
					err = plan.Apply(s, env.Roots)
					after, _ := os.ReadFile(path)
					if c.drift && !force {
						if !errors.Is(err, ErrDrift) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "--force") {
							t.Fatalf("apply: %v, want a drift refusal naming the file", err)
						}
						if string(after) != string(before) {
							t.Errorf("a refused rewind changed the file: %q", after)
						}
						return
					}
					if err != nil {
						t.Fatal(err)
					}
					if string(after) != "v1\n" {
						t.Errorf("after rewind: %q, want v1", after)
					}
				})
			}
		}
	}
}

// Neither a tampered index naming a file outside the workspace nor a
// symlink swapped in after the record makes a rewind read, print or write
// a file outside the workspace.
func TestRewindStaysInsideTheWorkspace(t *testing.T) {
	t.Parallel()
	const secret = "top secret\n"
	cases := []struct {
		name  string
		setup func(t *testing.T, ws, outside string, s *DiskStore)
	}{
		{"tampered index", func(t *testing.T, ws, outside string, s *DiskStore) {
			if _, _, err := s.Record("n1", "write", filepath.Join(outside, "f"), prior("old\n")); err != nil {
				t.Fatal(err)
			}
		}},
		{"symlink swapped in", func(t *testing.T, ws, outside string, s *DiskStore) {
			os.Mkdir(filepath.Join(ws, "sub"), 0o755)
			os.WriteFile(filepath.Join(ws, "sub", "f"), []byte("mine\n"), 0o644)
			if _, _, err := s.Record("n1", "write", filepath.Join(ws, "sub", "f"), prior("old\n")); err != nil {
				t.Fatal(err)
			}
			os.RemoveAll(filepath.Join(ws, "sub"))
			if err := os.Symlink(outside, filepath.Join(ws, "sub")); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ws, outside := t.TempDir(), t.TempDir()
			os.WriteFile(filepath.Join(outside, "f"), []byte(secret), 0o644)
			s := ForWorkspace(ws)
			c.setup(t, ws, outside, s)
			roots := []string{ws}
			plan, err := NewPlan(s, "n1", roots)
			if err == nil {
				shown := plan.Diff(nil) + plan.DriftDiff(nil)
				if strings.Contains(shown, "secret") {
					t.Errorf("the plan shows a file outside the workspace:\n%s", shown)
				}
				plan.Force = true
				err = plan.Apply(s, roots)
			}
			if err == nil {
				t.Fatal("a rewind outside the workspace was carried out")
			}
			if strings.Contains(err.Error(), "secret") {
				t.Errorf("the error shows outside content: %v", err)
			}
			if b, _ := os.ReadFile(filepath.Join(outside, "f")); string(b) != secret {
				t.Errorf("the outside file was changed: %q", b)
			}
		})
	}
}
