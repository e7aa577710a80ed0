package tool_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/indusagi/induscode/tool"
)

func TestResolve(t *testing.T) {
	t.Parallel()
	home, err := os.UserHomeDir()
	if err != nil {
		t.Skip("no home directory")
	}
	env := tool.NewEnv("/work/proj")
	tests := []struct{ in, want, err string }{
		{"main.go", "/work/proj/main.go", ""},
		{"@src/a.go", "/work/proj/src/a.go", ""},
		{"  ./x/../y ", "/work/proj/y", ""},
		{"/etc/hosts", "/etc/hosts", ""},
		{"~", home, ""},
		{"~/notes.md", filepath.Join(home, "notes.md"), ""},
		{"~user/x", "/work/proj/~user/x", ""},
		{"../other", "/work/other", ""},
		{"", "", "path is empty"},
		{"@", "", "path is empty"},
		{"a\x00b", "", "NUL"},
	}
	for _, tc := range tests {
		got, err := env.Resolve(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("Resolve(%q) err = %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("Resolve(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

func TestWorkspaceRoot(t *testing.T) {
	t.Parallel()
	env := tool.NewEnv("/work/proj", "/data/shared", "rel")
	tests := []struct{ in, root, rel string }{
		{"/work/proj/a/b.go", "/work/proj", "a/b.go"},
		{"/work/proj", "/work/proj", "."},
		{"/data/shared/x", "/data/shared", "x"},
		{"/work/proj/rel/y", "/work/proj", "rel/y"},
	}
	for _, tc := range tests {
		root, rel, err := env.WorkspaceRoot(tc.in)
		if err != nil || root != tc.root || rel != tc.rel {
			t.Errorf("WorkspaceRoot(%q) = %q, %q, %v; want %q, %q", tc.in, root, rel, err, tc.root, tc.rel)
		}
	}
	for _, out := range []string{"/work/project2/a", "/work", "/etc/passwd", "/work/proj/../x"} {
		if _, _, err := env.WorkspaceRoot(out); !errors.Is(err, tool.ErrOutsideWorkspace) {
			t.Errorf("WorkspaceRoot(%q) err = %v, want ErrOutsideWorkspace", out, err)
		}
	}
	if got := env.Rel("/work/proj/a/b"); got != "a/b" {
		t.Errorf("Rel inside = %q", got)
	}
	if got := env.Rel("/etc/x"); got != "/etc/x" {
		t.Errorf("Rel outside = %q", got)
	}
}

func TestSharedIsPerSession(t *testing.T) {
	t.Parallel()
	type key struct{}
	a, b := tool.NewEnv(t.TempDir()), tool.NewEnv(t.TempDir())
	mk := func() *int { return new(int) }
	var wg sync.WaitGroup
	got := make([]*int, 50)
	for i := range got {
		wg.Go(func() { got[i] = tool.Shared(a, key{}, mk) })
	}
	wg.Wait()
	for _, p := range got {
		if p != got[0] {
			t.Fatal("one session produced two values")
		}
	}
	if tool.Shared(b, key{}, mk) == got[0] {
		t.Error("two sessions share a value")
	}
}

func TestReadState(t *testing.T) {
	t.Parallel()
	s := tool.NewReadState()
	s.Record(tool.ReadRecord{Path: "/a/./b", Size: 3})
	r, ok := s.Lookup("/a/b")
	if !ok || r.Size != 3 || r.At.IsZero() {
		t.Errorf("Lookup = %+v, %v", r, ok)
	}
	s.Forget("/a/b")
	if _, ok := s.Lookup("/a/b"); ok || s.Len() != 0 {
		t.Error("Forget did not forget")
	}
}

func TestReportProgress(t *testing.T) {
	t.Parallel()
	tool.ReportProgress(context.Background(), 1, 2, "no listener: nothing happens")
	var got []float64
	ctx := tool.WithProgress(context.Background(), func(done, total float64, msg string) { got = append(got, done, total) })
	tool.ReportProgress(ctx, 1, 4, "a")
	if len(got) != 2 || got[0] != 1 || got[1] != 4 {
		t.Errorf("progress = %v", got)
	}
}
