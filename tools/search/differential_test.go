package search

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/indusagi/induscode/internal/testpeer"
	"github.com/indusagi/induscode/tool"
)

// differentialTree builds the fixture the differential tests search: a
// git repository holding a few packages of the Go source tree (real code
// for the benchmark queries) and hand-made files for every ignore rule,
// hidden files, binary files and non-ASCII text.
func differentialTree(t *testing.T) string {
	t.Helper()
	root := tree(t, map[string]string{
		".git/HEAD":               "ref: refs/heads/main\n",
		".git/info/exclude":       "excluded-by-info/\n",
		".gitignore":              "*.log\nbuild/\n/generated.go\n!keep.log\n",
		".ignore":                 "scratch/\n",
		"app/.gitignore":          "*.tmp\n!important.tmp\nlocal/\n",
		"app/main.go":             "package main\n\nimport \"context\"\n\nfunc Serve(ctx context.Context) error { return nil } // 2024-03-01\n",
		"app/important.tmp":       "ErrUnexpectedEOF kept by negation\n",
		"app/junk.tmp":            "ErrUnexpectedEOF ignored\n",
		"app/local/x.go":          "func Local(ctx context.Context) {}\n",
		"app/sub/.gitignore":      "!junk2.tmp\n",
		"app/sub/junk2.tmp":       "unexpected eof re-included below\n",
		"app/sub/deep/ok_test.go": "package deep // Unexpected EOF 1999-12-31\n",
		"build/out.go":            "func Built(ctx context.Context) {}\n",
		"generated.go":            "ErrUnexpectedEOF generated\n",
		"sub/generated.go":        "ErrUnexpectedEOF not anchored here\n",
		"debug.log":               "ErrUnexpectedEOF in a log\n",
		"keep.log":                "ErrUnexpectedEOF kept log 2023-01-02\n",
		"scratch/notes.txt":       "ErrUnexpectedEOF scratch\n",
		"excluded-by-info/x.txt":  "ErrUnexpectedEOF excluded\n",
		".hidden/dot_test.go":     "func Hidden(ctx context.Context) error // UNEXPECTED EOF\n",
		".env":                    "DATE=2020-02-02\n",
		".git/config":             "ErrUnexpectedEOF inside .git\n",
		"unicode/grüße.txt":       "Grüße aus Köln: unexpected EOF\n日本語のテキスト 2021-05-06\n",
		"unicode/kelvin.txt":      "the \u212Aelvin sign, UNEXPECTED eof\n",
		"crlf.txt":                "ErrUnexpectedEOF\r\nsecond line 2022-12-12\r\n",
		"nonl.txt":                "no newline at the end ErrUnexpectedEOF",
		"latin1.txt":              "caf\xe9 ErrUnexpectedEOF\n",
		"bin/blob.bin":            "ErrUnexpectedEOF\x00\x01\x02 2024-01-01\n",
		"bin/late.bin":            "text first ErrUnexpectedEOF\nthen a nul \x00\n",
		"empty.txt":               "",
		"rare/needle.txt":         "zqxjv_needle_rare\n",
	})
	goroot := runtime.GOROOT()
	for _, pkg := range []string{"bufio", "context", "net/http/httptest", "archive/tar", "time", "encoding/csv"} {
		copyDir(t, filepath.Join(goroot, "src", pkg), filepath.Join(root, "gosrc", pkg))
	}
	return root
}

func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
	if err != nil {
		testpeer.Missing(t, "Go's library sources in "+src+" ("+err.Error()+")", "install a Go toolchain with its src folder, as the official downloads have")
	}
}

// rgArgs make ripgrep behave as grep does: hidden files searched, .git
// skipped, no config or global ignore file, nothing above the root.
var rgArgs = []string{"--no-config", "--hidden", "-g", "!.git", "--no-ignore-global", "--no-ignore-parent",
	"--no-heading", "--color", "never", "--no-messages"}

func runPeer(t *testing.T, dir, name string, args ...string) []string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "RIPGREP_CONFIG_PATH=")
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 1 && len(out) == 0 {
		return nil // no match
	}
	if err != nil {
		t.Fatalf("%s %q: %v", name, args, err)
	}
	return normalize(string(out))
}

func normalize(out string) []string {
	var lines []string
	for _, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		l = strings.TrimSuffix(l, "\r")
		l = strings.ToValidUTF8(l, "\uFFFD")
		if l != "" {
			lines = append(lines, filepath.ToSlash(strings.TrimPrefix(l, "./")))
		}
	}
	slices.Sort(lines)
	return lines
}

// ours runs a tool and returns its result lines without the header line
// ("Found …") and notices, sorted.
func ours(t *testing.T, tl tool.Tool, dir, input string, header bool) []string {
	t.Helper()
	res := tl.Run(t.Context(), []byte(input), tool.NewEnv(dir))
	if res.IsError {
		t.Fatalf("%s: %s", input, res.PlainText())
	}
	text := res.PlainText()
	if strings.HasPrefix(text, "No matches") || strings.HasPrefix(text, "No files match") {
		return nil
	}
	if header {
		_, text, _ = strings.Cut(text, "\n")
	}
	var kept []string
	for _, l := range normalize(text) {
		if !strings.HasPrefix(l, "[") {
			kept = append(kept, l)
		}
	}
	return kept
}

func TestDifferentialRipgrep(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("rg"); err != nil {
		testpeer.Missing(t, "ripgrep (rg)", "install the Debian package ripgrep (scripts/test does) to compare grep with it")
	}
	root := differentialTree(t)
	g := GrepTool(Options{})
	tests := []struct {
		name  string
		input string   // grep input
		rg    []string // ripgrep flags and pattern
		files bool     // files_with_matches: output has a header line
	}{
		{"literal", `{"pattern":"ErrUnexpectedEOF","output_mode":"content","head_limit":0}`,
			[]string{"-n", "ErrUnexpectedEOF"}, false},
		{"regex with a literal", `{"pattern":"func [A-Z][a-zA-Z]+\\(ctx context\\.Context","output_mode":"content","head_limit":0}`,
			[]string{"-n", `func [A-Z][a-zA-Z]+\(ctx context\.Context`}, false},
		{"case-insensitive literal", `{"pattern":"unexpected eof","case_insensitive":true,"output_mode":"content","head_limit":0}`,
			[]string{"-n", "-i", "unexpected eof"}, false},
		{"case-insensitive with k and s", `{"pattern":"kelvin sign","case_insensitive":true,"output_mode":"content","head_limit":0}`,
			[]string{"-n", "-i", "kelvin sign"}, false},
		{"rare literal, files", `{"pattern":"zqxjv_needle_rare","head_limit":0}`,
			[]string{"-l", "zqxjv_needle_rare"}, true},
		{"common literal, files", `{"pattern":"func","head_limit":0}`,
			[]string{"-l", "func"}, true},
		{"no literal", `{"pattern":"[0-9]{4}-[0-9]{2}-[0-9]{2}","output_mode":"content","head_limit":0}`,
			[]string{"-n", "[0-9]{4}-[0-9]{2}-[0-9]{2}"}, false},
		{"no literal at all", `{"pattern":"^[A-Z][a-z]+[0-9]{2,}|[a-z]{3}[0-9]+$","output_mode":"content","head_limit":0}`,
			[]string{"-n", "^[A-Z][a-z]+[0-9]{2,}|[a-z]{3}[0-9]+$"}, false},
		{"count", `{"pattern":"return","output_mode":"count","head_limit":0}`,
			[]string{"-c", "return"}, true},
		{"type go", `{"pattern":"context","type":"go","head_limit":0}`,
			[]string{"-l", "-t", "go", "context"}, true},
		{"glob", `{"pattern":"Reader","glob":"*_test.go","head_limit":0}`,
			[]string{"-l", "-g", "*_test.go", "Reader"}, true},
		{"glob and type together", `{"pattern":"EOF","glob":"*.txt","type":"go","head_limit":0}`,
			[]string{"-l", "-g", "*.txt", "-t", "go", "EOF"}, true},
		{"negated glob", `{"pattern":"Unexpected","glob":"!gosrc/","case_insensitive":true,"head_limit":0}`,
			[]string{"-l", "-i", "-g", "!gosrc/", "Unexpected"}, true},
		{"whole word", `{"pattern":"err","word":true,"output_mode":"content","head_limit":0}`,
			[]string{"-n", "-w", "err"}, false},
		{"whole word, case-insensitive", `{"pattern":"eof","word":true,"case_insensitive":true,"output_mode":"content","head_limit":0}`,
			[]string{"-n", "-w", "-i", "eof"}, false},
		{"whole word, regex", `{"pattern":"Read(er|At)?","word":true,"output_mode":"count","head_limit":0}`,
			[]string{"-c", "-w", "Read(er|At)?"}, true},
		{"unicode", `{"pattern":"grüße","case_insensitive":true,"output_mode":"content","head_limit":0}`,
			[]string{"-n", "-i", "grüße"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			want := runPeer(t, root, "rg", append(slices.Clone(rgArgs), tt.rg...)...)
			got := ours(t, g, root, tt.input, tt.files)
			if len(want) == 0 {
				t.Fatalf("ripgrep found nothing for %q; the fixture should exercise the query", tt.rg)
			}
			if !slices.Equal(got, want) {
				t.Errorf("grep and ripgrep disagree\n%s", diffLines(got, want))
			}
			t.Logf("%d result lines agree", len(got))
		})
	}
}

func TestDifferentialFd(t *testing.T) {
	t.Parallel()
	fd := "fdfind"
	if _, err := exec.LookPath(fd); err != nil {
		if fd = "fd"; func() error { _, err := exec.LookPath(fd); return err }() != nil {
			testpeer.Missing(t, "fd", "install the Debian package fd-find (scripts/test does) to compare find with it")
		}
	}
	root := differentialTree(t)
	f := FindTool(Options{})
	fdArgs := []string{"--hidden", "--no-ignore-parent", "-E", ".git", "-t", "f", "--color", "never"}
	tests := []struct {
		name, input string
		fd          []string
	}{
		{"test files", `{"pattern":"**/*_test.go","limit":1000}`, []string{"-g", "*_test.go"}},
		{"name regex", `{"pattern":"**/[a-m]*_test.go","limit":1000}`, []string{`^[a-m].*_test\.go$`}},
		{"hidden and unicode", `{"pattern":"*.{txt,env}","limit":1000}`, []string{"-g", "*.{txt,env}"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			want := runPeer(t, root, fd, append(slices.Clone(fdArgs), tt.fd...)...)
			got := ours(t, f, root, tt.input, false)
			if len(want) == 0 {
				t.Fatalf("fd found nothing for %q", tt.fd)
			}
			if !slices.Equal(got, want) {
				t.Errorf("find and fd disagree\n%s", diffLines(got, want))
			}
			t.Logf("%d files agree", len(got))
		})
	}
}

// diffLines lists what only one side has.
func diffLines(ours, theirs []string) string {
	var b bytes.Buffer
	for _, l := range ours {
		if !slices.Contains(theirs, l) {
			b.WriteString("  only ours:   " + l + "\n")
		}
	}
	for _, l := range theirs {
		if !slices.Contains(ours, l) {
			b.WriteString("  only theirs: " + l + "\n")
		}
	}
	if b.Len() == 0 {
		b.WriteString("  (same lines, different multiplicity)\n")
	}
	return b.String()
}

// TestDifferentialLongLine puts a match across the 16 MiB mark inside one
// 20 MiB line, where a worker's buffer used to be cut: ripgrep finds it,
// and so must grep.
func TestDifferentialLongLine(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("rg"); err != nil {
		testpeer.Missing(t, "ripgrep (rg)", "install the Debian package ripgrep (scripts/test does) to compare grep with it")
	}
	const mark = 16 << 20
	dir := hugeDir(t, 64<<20)
	var data bytes.Buffer
	// The long line is the file's first, so a worker's buffer holds its
	// first 16 MiB: the match is at bytes mark-3 to mark+5.
	data.Write(bytes.Repeat([]byte("a"), mark-3))
	data.WriteString("STRADDLE")
	data.Write(bytes.Repeat([]byte("b"), 4<<20))
	data.WriteString("\nafter STRADDLE\n")
	if err := os.WriteFile(filepath.Join(dir, "long.txt"), data.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	g := GrepTool(Options{})
	want := runPeer(t, dir, "rg", append(slices.Clone(rgArgs), "-c", "STRADDLE")...)
	got := ours(t, g, dir, `{"pattern":"STRADDLE","output_mode":"count"}`, true)
	if !slices.Equal(got, want) || !slices.Equal(want, []string{"long.txt:2"}) {
		t.Errorf("count: grep %q, ripgrep %q; want both [long.txt:2]", got, want)
	}
	out := run(t, g, dir, `{"pattern":"STR[A]DDLE","output_mode":"content"}`).PlainText()
	if !strings.HasPrefix(out, "long.txt:1:…") || !strings.Contains(out, "aSTRADDLEb") || !strings.Contains(out, "long.txt:2:after STRADDLE") {
		t.Errorf("content: the long line must be shown clipped around its match:\n%.300s", out)
	}
}
