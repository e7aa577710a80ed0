package search

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

var findTree = map[string]string{
	".git/HEAD":                "",
	".gitignore":               "dist/\n*.tmp\n",
	"go.mod":                   "",
	"main.go":                  "",
	"main_test.go":             "",
	"src/app/app.go":           "",
	"src/app/app_test.go":      "",
	"src/lib/deep/x.go":        "",
	"src/lib/readme.md":        "",
	"dist/bundle.js":           "",
	"scratch.tmp":              "",
	".github/workflows/ci.yml": "",
	"config/settings.json":     "",
	"config/settings.yaml":     "",
	"données/été.txt":          "",
}

// aged sets modification times so that files listed first are newest.
func aged(t *testing.T, root string, newestFirst ...string) {
	t.Helper()
	now := time.Now()
	for i, p := range newestFirst {
		ts := now.Add(-time.Duration(i+1) * time.Hour)
		if err := os.Chtimes(filepath.Join(root, p), ts, ts); err != nil {
			t.Fatal(err)
		}
	}
}

func TestFind(t *testing.T) {
	t.Parallel()
	root := tree(t, findTree)
	aged(t, root, "src/app/app_test.go", "main.go", "main_test.go", "src/app/app.go", "src/lib/deep/x.go",
		"go.mod", "src/lib/readme.md", ".github/workflows/ci.yml", "config/settings.json", "config/settings.yaml", "données/été.txt",
		".gitignore")
	f := FindTool(Options{})
	tests := []struct {
		name, input, want string
		isError           bool
	}{
		{"name pattern matches at any depth, newest first", `{"pattern":"*.go"}`,
			"src/app/app_test.go\nmain.go\nmain_test.go\nsrc/app/app.go\nsrc/lib/deep/x.go", false},
		{"doublestar prefix is the same", `{"pattern":"**/*_test.go"}`, "src/app/app_test.go\nmain_test.go", false},
		{"anchored pattern", `{"pattern":"src/*/*.go"}`, "src/app/app_test.go\nsrc/app/app.go", false},
		{"anchored doublestar", `{"pattern":"src/**/*.go"}`, "src/app/app_test.go\nsrc/app/app.go\nsrc/lib/deep/x.go", false},
		{"braces", `{"pattern":"*.{json,yaml}"}`, "config/settings.json\nconfig/settings.yaml", false},
		{"hidden files included", `{"pattern":"**/*.yml"}`, ".github/workflows/ci.yml", false},
		{"ignored files left out", `{"pattern":"*.{js,tmp}"}`, "No files match \"*.{js,tmp}\" in the working directory.", false},
		{"path narrows", `{"pattern":"*.go","path":"src/lib"}`, "src/lib/deep/x.go", false},
		{"unicode", `{"pattern":"**/été.txt"}`, "données/été.txt", false},
		{"exact name", `{"pattern":"go.mod"}`, "go.mod", false},
		{"limit cuts with a notice", `{"pattern":"*.go","limit":2}`,
			"src/app/app_test.go\nmain.go\n[Showing the 2 most recently modified of 5 matching files. Narrow the pattern or path, or raise limit (at most 1000).]", false},
		{"no match", `{"pattern":"*.rs"}`, "No files match \"*.rs\" in the working directory.", false},
		{"a directory name says how to list its files", `{"pattern":"lib","path":"src"}`,
			"No files match \"lib\" in src. src/lib is a directory and find lists files only; use the pattern \"lib/**\" to list the files under it, or ls to see its entries.", false},

		{"invalid glob", `{"pattern":"src/[a-"}`, "find: pattern \"src/[a-\" is not a valid glob", true},
		{"empty pattern", `{"pattern":" "}`, "find: pattern is empty", true},
		{"trailing slash", `{"pattern":"src/"}`, "find: pattern \"src/\" ends with /, but find lists files", true},
		{"missing path", `{"pattern":"*.go","path":"nope"}`, "find: path \"nope\" does not exist", true},
		{"path is a file", `{"pattern":"*.go","path":"main.go"}`, "find: path \"main.go\" is a file; give the directory", true},
		{"limit above the maximum", `{"pattern":"*.go","limit":5000}`, "invalid input for find: field limit:", true},
		{"limit zero", `{"pattern":"*.go","limit":0}`, "invalid input for find: field limit:", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res := run(t, f, root, tt.input)
			got := res.PlainText()
			if res.IsError != tt.isError {
				t.Fatalf("IsError = %v: %s", res.IsError, got)
			}
			if tt.isError {
				if !strings.HasPrefix(got, tt.want) {
					t.Fatalf("error = %q\nwant prefix %q", got, tt.want)
				}
				return
			}
			if got != tt.want {
				t.Fatalf("output:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}

func TestFindBudget(t *testing.T) {
	t.Parallel()
	root := tree(t, findTree)
	got := run(t, FindTool(Options{Budget: time.Nanosecond}), root, `{"pattern":"*.go"}`).PlainText()
	if !strings.Contains(got, "[Search stopped at its 1ns time budget: results are partial.") {
		t.Errorf("an exhausted budget gives partial results with a notice: %s", got)
	}
}

func TestSelectFirst(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	for n := 1; n < 60; n++ {
		for k := 1; k <= n; k++ {
			s := make([]int, n)
			for i := range s {
				s[i] = r.IntN(10)
			}
			want := slices.Sorted(slices.Values(s))[:k]
			selectFirst(s, k, cmp.Compare[int])
			got := slices.Sorted(slices.Values(s[:k]))
			if !slices.Equal(got, want) {
				t.Fatalf("n=%d k=%d: got %v want %v", n, k, got, want)
			}
		}
	}
}

func TestCompileFindPattern(t *testing.T) {
	t.Parallel()
	tests := []struct {
		pattern, base string
		anchored      bool
		glob          string
	}{
		{"*.go", ".", false, "*.go"},
		{"**/*.go", ".", false, "*.go"},
		{"./src/**/*.go", "src", false, "*.go"},
		{"src/*.go", "src", true, "*.go"},
		{"a/b/c.txt", "a/b", true, "c.txt"},
		{"**/testdata/**", ".", true, "**/testdata/**"},
	}
	for _, tt := range tests {
		t.Run(tt.pattern, func(t *testing.T) {
			t.Parallel()
			base, np, err := compileFindPattern(tt.pattern)
			if err != nil {
				t.Fatal(err)
			}
			if got := fmt.Sprint(base, np.anchored, np.glob); got != fmt.Sprint(tt.base, tt.anchored, tt.glob) {
				t.Errorf("got %s, want %s", got, fmt.Sprint(tt.base, tt.anchored, tt.glob))
			}
		})
	}
}

// The state folder holds checkpoints (copies of project files) and the
// logs of background commands: grep and find never show them, in a
// workspace that is not a git repository (where its self-ignoring
// .gitignore does not apply) as in one that is.
func TestStateFolderIsNeverWalked(t *testing.T) {
	t.Parallel()
	for _, gitRepo := range []bool{false, true} {
		files := map[string]string{
			"src/a.go":                        "needle\n",
			".indusvx/.gitignore":             "*\n",
			".indusvx/checkpoints/after/3f2a": "needle\n",
			".indusvx/bg/p1.log":              "needle\n",
			"sub/.indusvx/bg/p2.log":          "needle\n",
		}
		if gitRepo {
			files[".git/HEAD"] = "ref: refs/heads/main\n"
		}
		root := tree(t, files)
		for _, tc := range []struct{ tool, input, want string }{
			{"grep", `{"pattern":"needle"}`, "Found 1 file\nsrc/a.go"},
			{"grep", `{"pattern":"needle","output_mode":"content"}`, "src/a.go:1:needle"},
			{"grep", `{"pattern":"needle","output_mode":"count"}`, "Found 1 matching line in 1 file\nsrc/a.go:1"},
			{"find", `{"pattern":"**/*"}`, "src/a.go"},
		} {
			tl := GrepTool(Options{})
			if tc.tool == "find" {
				tl = FindTool(Options{})
			}
			res := run(t, tl, root, tc.input)
			if got := res.PlainText(); res.IsError || got != tc.want {
				t.Errorf("git repository %v: %s %s = %q, want %q", gitRepo, tc.tool, tc.input, got, tc.want)
			}
		}
	}
}
