package walk

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestParseRule(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, line string
		ok         bool
		want       rule
	}{
		{"blank", "", false, rule{}},
		{"spaces only", "   ", false, rule{}},
		{"comment", "# build output", false, rule{}},
		{"escaped hash", `\#notes`, true, rule{glob: `\#notes`}},
		{"name", "node_modules", true, rule{kind: kindName, lit: "node_modules"}},
		{"dir only", "build/", true, rule{kind: kindName, lit: "build", dirOnly: true}},
		{"anchored", "/vendor", true, rule{kind: kindPath, lit: "vendor", anchored: true}},
		{"middle slash anchors", "docs/gen", true, rule{kind: kindPath, lit: "docs/gen", anchored: true}},
		{"negation", "!keep.log", true, rule{kind: kindName, lit: "keep.log", negate: true}},
		{"escaped bang", `\!important`, true, rule{glob: `\!important`}},
		{"suffix", "*.log", true, rule{kind: kindSuffix, lit: ".log"}},
		{"glob", "*.py[co]", true, rule{glob: "*.py[co]"}},
		{"leading doublestar is unanchored", "**/tmp", true, rule{kind: kindName, lit: "tmp"}},
		{"trailing doublestar means inside", "logs/**", true, rule{glob: "logs/**/*", anchored: true}},
		{"braces are literal", "{a,b}", true, rule{glob: `\{a,b\}`}},
		{"trailing spaces dropped", "foo   ", true, rule{kind: kindName, lit: "foo"}},
		{"escaped trailing space kept", `foo\ `, true, rule{glob: `foo\ `}},
		{"crlf", "foo\r", true, rule{kind: kindName, lit: "foo"}},
		{"only a slash", "/", false, rule{}},
		{"only a bang", "!", false, rule{}},
		{"bad class", "[", false, rule{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ok := parseRule(tt.line)
			if ok != tt.ok {
				t.Fatalf("parseRule(%q) ok = %v, want %v", tt.line, ok, tt.ok)
			}
			if ok && got != tt.want {
				t.Errorf("parseRule(%q) = %+v, want %+v", tt.line, got, tt.want)
			}
		})
	}
}

func TestRuleSetMatch(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		rules string
		path  string // relative to the ignore file's directory
		dir   bool
		want  verdict
	}{
		{"name at top", "foo", "foo", false, ignoreIt},
		{"name at depth", "foo", "a/b/foo", false, ignoreIt},
		{"name is not a prefix", "foo", "foobar", false, noVerdict},
		{"dir-only skips files", "build/", "build", false, noVerdict},
		{"dir-only matches dirs", "build/", "a/build", true, ignoreIt},
		{"anchored only at top", "/foo", "a/foo", false, noVerdict},
		{"anchored at top", "/foo", "foo", false, ignoreIt},
		{"suffix", "*.log", "x/y.log", false, ignoreIt},
		{"star stays in a segment", "a/*.go", "a/b/c.go", false, noVerdict},
		{"star in segment", "a/*.go", "a/c.go", false, ignoreIt},
		{"doublestar middle", "a/**/z", "a/b/c/z", false, ignoreIt},
		{"doublestar middle zero dirs", "a/**/z", "a/z", false, ignoreIt},
		{"trailing doublestar excludes contents", "logs/**", "logs/x/y", false, ignoreIt},
		{"trailing doublestar spares the dir", "logs/**", "logs", true, noVerdict},
		{"negation wins when last", "*.log\n!keep.log", "keep.log", false, keepIt},
		{"last match wins", "!keep.log\n*.log", "keep.log", false, ignoreIt},
		{"name after glob", "*.txt\nnotes.txt", "notes.txt", false, ignoreIt},
		{"negated name then glob", "a.txt\n!*.txt", "a.txt", false, keepIt},
		{"class", "*.py[co]", "m.pyc", false, ignoreIt},
		{"negated class", "file[!0-9]", "filex", false, ignoreIt},
		{"negated class miss", "file[!0-9]", "file1", false, noVerdict},
		{"question mark", "?.md", "a.md", false, ignoreIt},
		{"question mark is one char", "?.md", "ab.md", false, noVerdict},
		{"literal braces", "{a,b}", "{a,b}", false, ignoreIt},
		{"literal braces do not alternate", "{a,b}", "a", false, noVerdict},
		{"unicode name", "café/", "x/café", true, ignoreIt},
		{"escaped hash", `\#x`, "#x", false, ignoreIt},
		{"anchored dir path", "/docs/gen/", "docs/gen", true, ignoreIt},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rs := parseRules("/r", []byte(tt.rules))
			got := rs.match(tt.path, filepath.Base(tt.path), tt.dir)
			if got != tt.want {
				t.Errorf("rules %q on %q (dir=%v) = %v, want %v", tt.rules, tt.path, tt.dir, got, tt.want)
			}
		})
	}
}

func TestParseRulesBOMAndEmpty(t *testing.T) {
	t.Parallel()
	rs := parseRules("/r", []byte("\xef\xbb\xbf*.tmp\n\n# c\n"))
	if rs == nil || rs.match("a.tmp", "a.tmp", false) != ignoreIt {
		t.Fatal("a UTF-8 BOM must not hide the first pattern")
	}
	if parseRules("/r", []byte("# only comments\n\n")) != nil {
		t.Fatal("a file without patterns should yield no rule set")
	}
}

// tree writes files (path -> content; a trailing "/" makes a directory)
// under a new temp dir and returns it.
func tree(t testing.TB, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, body := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if strings.HasSuffix(p, "/") {
			if err := os.MkdirAll(full, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// walked returns the files the walk visits under root, relative and sorted.
func walked(t testing.TB, root string, f Filter) []string {
	t.Helper()
	var mu = make(chan struct{}, 1)
	var got []string
	var stats Stats
	Walk(t.Context(), Config{Root: root, Filter: f, Visit: func(_ int, f File) {
		mu <- struct{}{}
		got = append(got, filepath.ToSlash(strings.TrimPrefix(f.Path, root+string(filepath.Separator))))
		<-mu
	}}, &stats)
	slices.Sort(got)
	return got
}

func TestWalkIgnoreSemantics(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		files map[string]string
		want  []string
	}{
		{
			name: "gitignore needs a repository",
			files: map[string]string{
				".gitignore": "*.log\n", "a.log": "", "b.txt": "",
			},
			want: []string{".gitignore", "a.log", "b.txt"},
		},
		{
			name: "root gitignore in a repository",
			files: map[string]string{
				".git/HEAD": "", ".gitignore": "*.log\nbuild/\n", "a.log": "", "b.txt": "",
				"build/out.txt": "", "src/build": "a file named build",
			},
			want: []string{".gitignore", "b.txt", "src/build"},
		},
		{
			name: "nested gitignore applies below its directory only",
			files: map[string]string{
				".git/HEAD": "", "sub/.gitignore": "*.gen\n/local\n", "sub/x.gen": "", "y.gen": "",
				"sub/local": "", "sub/deep/local": "",
			},
			want: []string{"sub/.gitignore", "sub/deep/local", "y.gen"},
		},
		{
			name: "deeper negation re-includes",
			files: map[string]string{
				".git/HEAD": "", ".gitignore": "*.txt\n", "keep/.gitignore": "!important.txt\n",
				"keep/important.txt": "", "keep/other.txt": "",
			},
			want: []string{".gitignore", "keep/.gitignore", "keep/important.txt"},
		},
		{
			name: "negation cannot reach into an ignored directory",
			files: map[string]string{
				".git/HEAD": "", ".gitignore": "out/\n!out/keep.txt\n", "out/keep.txt": "",
			},
			want: []string{".gitignore"},
		},
		{
			name: "trailing doublestar with negation",
			files: map[string]string{
				".git/HEAD": "", ".gitignore": "logs/**\n!logs/keep\n", "logs/keep": "", "logs/drop": "",
			},
			want: []string{".gitignore", "logs/keep"},
		},
		{
			name: "info exclude",
			files: map[string]string{
				".git/HEAD": "", ".git/info/exclude": "secret.txt\n", "secret.txt": "", "open.txt": "",
			},
			want: []string{"open.txt"},
		},
		{
			name: "gitignore beats info exclude",
			files: map[string]string{
				".git/HEAD": "", ".git/info/exclude": "*.txt\n", ".gitignore": "!keep.txt\n",
				"keep.txt": "", "drop.txt": "",
			},
			want: []string{".gitignore", "keep.txt"},
		},
		{
			name: "dot ignore works without a repository and beats gitignore",
			files: map[string]string{
				".git/HEAD": "", ".gitignore": "*.md\n", ".ignore": "!README.md\nscratch/\n",
				"README.md": "", "NOTES.md": "", "scratch/x": "",
			},
			want: []string{".gitignore", ".ignore", "README.md"},
		},
		{
			name: "hidden files are searched, version-control dirs are not",
			files: map[string]string{
				".env": "", ".config/app.toml": "", ".git/config": "", ".hg/store": "", ".svn/x": "", "sub/.git": "gitdir: elsewhere",
			},
			want: []string{".config/app.toml", ".env"},
		},
		{
			name: "nested repository does not inherit the outer gitignore",
			files: map[string]string{
				".git/HEAD": "", ".gitignore": "*.dat\n", "inner/.git/HEAD": "", "inner/x.dat": "", "y.dat": "",
			},
			want: []string{".gitignore", "inner/x.dat"},
		},
		{
			name: "unicode names",
			files: map[string]string{
				".git/HEAD": "", ".gitignore": "données/\n", "données/a": "", "naïve.txt": "",
			},
			want: []string{".gitignore", "naïve.txt"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := tree(t, tt.files)
			if got := walked(t, root, Filter{}); !slices.Equal(got, tt.want) {
				t.Errorf("walk = %q\nwant   %q", got, tt.want)
			}
		})
	}
}

func TestWalkAncestorRules(t *testing.T) {
	t.Parallel()
	root := tree(t, map[string]string{
		".git/HEAD": "", ".gitignore": "*.gen\nsub/skip/\n", ".ignore": "*.tmp\n",
		"sub/a.gen": "", "sub/a.go": "", "sub/b.tmp": "", "sub/skip/x": "",
	})
	// Searching from a subdirectory still honors the repository's rules.
	got := walked(t, filepath.Join(root, "sub"), Filter{})
	if want := []string{"a.go"}; !slices.Equal(got, want) {
		t.Errorf("walk of sub = %q, want %q", got, want)
	}
}

func TestWalkWorktreeExclude(t *testing.T) {
	t.Parallel()
	root := tree(t, map[string]string{
		"main/.git/info/exclude":          "excluded.txt\n",
		"main/.git/worktrees/w/x":         "",
		"main/.git/worktrees/w/commondir": "../..\n",
		"wt/excluded.txt":                 "",
		"wt/kept.txt":                     "",
	})
	gitdir := filepath.Join(root, "main", ".git", "worktrees", "w")
	if err := os.WriteFile(filepath.Join(root, "wt", ".git"), []byte("gitdir: "+gitdir+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got := walked(t, filepath.Join(root, "wt"), Filter{})
	if want := []string{"kept.txt"}; !slices.Equal(got, want) {
		t.Errorf("walk of a worktree = %q, want %q (the common dir's info/exclude applies)", got, want)
	}
}

func TestWalkSkipsSymlinksAndSpecialFiles(t *testing.T) {
	t.Parallel()
	root := tree(t, map[string]string{"real/a.txt": "x", "b.txt": "y"})
	if err := os.Symlink(filepath.Join(root, "real"), filepath.Join(root, "link")); err != nil {
		t.Skip("symlinks unavailable:", err)
	}
	if err := os.Symlink(filepath.Join(root, "b.txt"), filepath.Join(root, "c.txt")); err != nil {
		t.Fatal(err)
	}
	got := walked(t, root, Filter{})
	if want := []string{"b.txt", "real/a.txt"}; !slices.Equal(got, want) {
		t.Errorf("walk = %q, want %q (symlinks are not followed)", got, want)
	}
}

func TestWalkUnreadableDirectory(t *testing.T) {
	t.Parallel()
	if os.Geteuid() == 0 {
		t.Skip("root reads every directory")
	}
	root := tree(t, map[string]string{"open/a": "", "shut/b": ""})
	shut := filepath.Join(root, "shut")
	if err := os.Chmod(shut, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(shut, 0o755) })
	var stats Stats
	Walk(t.Context(), Config{Root: root, Visit: func(int, File) {}}, &stats)
	if stats.Unreadable() != 1 {
		t.Errorf("unreadable = %d, want 1", stats.Unreadable())
	}
}
