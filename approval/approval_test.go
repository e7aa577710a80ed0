package approval

import (
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
)

func write(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestShellWords(t *testing.T) {
	vars := map[string]string{"INDUSR_ADDON_DIR": "/w/a", "CLAUDE_PROJECT_DIR": "/w"}
	for in, want := range map[string][]string{
		`bash ./hooks/x.sh`:                         {"bash", "./hooks/x.sh"},
		`"$INDUSR_ADDON_DIR/check.sh" --fast`:       {"/w/a/check.sh", "--fast"},
		`${CLAUDE_PROJECT_DIR}/g.sh&&python3 s.py`:  {"/w/g.sh", "python3", "s.py"},
		`grep -q 'rm -rf' | ./x;echo "a b"`:         {"grep", "-q", "rm -rf", "./x", "echo", "a b"},
		`echo $HOME \$INDUSR_ADDON_DIR`:             {"echo", "$HOME", "$INDUSR_ADDON_DIR"},
		`sh -c 'exec $INDUSR_ADDON_DIR/x' < in.txt`: {"sh", "-c", "exec $INDUSR_ADDON_DIR/x", "in.txt"},
		``:   nil,
		`""`: {""},
	} {
		if got := ShellWords(in, vars); !slices.Equal(got, want) {
			t.Errorf("ShellWords(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzShellWords(f *testing.F) {
	for _, s := range []string{`bash ./x.sh`, `"$A/b" '${B}' \c`, `${`, `$`, `'unterminated`, "a\\"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		words := ShellWords(s, map[string]string{"A": "/a", "B": "b"})
		CommandFiles(words, "/w")
	})
}

func TestCommandFiles(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "server"), "x")
	got := CommandFiles([]string{"python3", "server.py", "-v", "--config=./c.json", "https://x.test/a", "server", "plain", "/abs/tool"}, dir)
	want := []string{filepath.Join(dir, "server.py"), filepath.Join(dir, "c.json"), filepath.Join(dir, "server"), "/abs/tool"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := CommandFiles([]string{"./run.sh"}, dir); !slices.Equal(got, []string{filepath.Join(dir, "run.sh")}) {
		t.Errorf("a program written as a path: %q", got)
	}
}

func TestStoreAndDiff(t *testing.T) {
	s := NewStore(filepath.Join(t.TempDir(), "cfg", FileName))
	old := []Item{Decl("hook a", "1"), {ID: "file x", Hash: "h1"}, {ID: "file gone", Hash: "h"}}
	if err := s.Approve("/w", "claude", old); err != nil {
		t.Fatal(err)
	}
	// Approvals at once all land.
	var wg sync.WaitGroup
	for _, g := range []string{"g1", "g2", "g3", "g4"} {
		wg.Go(func() {
			if err := s.Approve("/w", g, nil); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	for _, g := range []string{"claude", "g1", "g2", "g3", "g4"} {
		if _, ok, err := s.Recorded("/w", g); !ok || err != nil {
			t.Errorf("group %s lost: %v", g, err)
		}
	}
	r, _, _ := s.Recorded("/w", "claude")
	now := []Item{Decl("hook a", "1"), {ID: "file x", Hash: "h2"}, {ID: "file new", Hash: "h"}}
	if r.Covers(now[:1]) != true || r.Covers(now[1:2]) {
		t.Error("Covers")
	}
	got := Diff(r.Items, now)
	want := []Change{{"removed", "file gone"}, {"added", "file new"}, {"changed", "file x"}}
	if !slices.Equal(got, want) {
		t.Errorf("Diff = %v, want %v", got, want)
	}
	if had, err := s.Revoke("/w", "claude"); !had || err != nil {
		t.Errorf("Revoke: %v %v", had, err)
	}
	if _, ok, _ := s.Recorded("/w", "claude"); ok {
		t.Error("revoked approval still recorded")
	}
	if fi, err := os.Stat(s.Path()); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("store file: %v %v", fi, err)
	}
}
