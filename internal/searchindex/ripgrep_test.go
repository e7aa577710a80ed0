package searchindex_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/indusagi/induscode/internal/searchindex"
	"github.com/indusagi/induscode/internal/testpeer"
)

// rgTree generates the tree the ripgrep comparison searches: a git
// repository of generated Go-like files in nested packages, with ignore
// files (negations included), hidden files, binary files, non-ASCII and
// CRLF text. The seed is fixed, so the tree is the same on every run.
func rgTree(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	write := func(rel, body string) {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".git/HEAD", "ref: refs/heads/main\n")
	write(".gitignore", "*.log\n/gen/\n")
	write("pkg3/.gitignore", "testdata/\n!testdata/*.go\n")
	write(".ignore", "scratch/\n")
	r := rand.New(rand.NewPCG(25, 1))
	idents := []string{"ErrUnexpectedEOF", "parseCertificate", "OnceValues", "WriteTo", "Reader", "readLoop",
		"context", "deadline", "Context", "DEADLINE", "Grüße", "straße", "日本語", "KELVIN", "\u212Aelvin"}
	line := func() string {
		switch r.IntN(40) {
		case 0, 8, 9:
			return fmt.Sprintf("func (%c *%s) %s(ctx context.Context) error {", 'a'+rune(r.IntN(26)), idents[r.IntN(len(idents))], idents[r.IntN(len(idents))])
		case 1:
			return fmt.Sprintf("\treturn io.%s // %s %d", idents[r.IntN(len(idents))], idents[r.IntN(len(idents))], r.IntN(10000))
		case 2:
			return fmt.Sprintf("var %s%d = %q", strings.ToLower(idents[r.IntN(len(idents))]), r.IntN(100), idents[r.IntN(len(idents))])
		case 3, 5, 6, 7:
			return fmt.Sprintf("// %s ABC%04d context deadline exceeded", idents[r.IntN(len(idents))], r.IntN(10000))
		case 4:
			return "\tonce := sync.OnceValues(load)"
		default:
			return fmt.Sprintf("\tx := y + z%d", r.IntN(8))
		}
	}
	body := func(lines int, crlf bool) string {
		var sb strings.Builder
		for range lines {
			sb.WriteString(line())
			if crlf {
				sb.WriteString("\r")
			}
			sb.WriteString("\n")
		}
		return sb.String()
	}
	for i := range 300 {
		dir := fmt.Sprintf("pkg%d/sub%d", i%7, i%5)
		write(fmt.Sprintf("%s/f%d.go", dir, i), body(5+r.IntN(60), i%37 == 0))
	}
	write("pkg3/testdata/kept.go", "func (k *Reader) WriteTo(ctx context.Context) error { // kept by negation\n")
	write("pkg3/testdata/dropped.txt", "ErrUnexpectedEOF ignored\n")
	write("gen/zz.go", "ErrUnexpectedEOF generated\n")
	write("debug.log", "ErrUnexpectedEOF logged\n")
	write("scratch/notes.go", "parseCertificate scratch\n")
	write(".hidden/h.go", "parseCertificate hidden\ncontext DEADLINE\n")
	write("bin/blob.bin", "ErrUnexpectedEOF\x00binary\n")
	write("latin1.txt", "caf\xe9 ErrUnexpectedEOF\n")
	write("nonl.txt", "no newline OnceValues")
	return root
}

// TestIndexedGrepEqualsRipgrep runs a fixed set of queries (the
// benchmark's, and variants) through grep with a built index that
// vouches for every file, and through ripgrep: the lines are the same.
func TestIndexedGrepEqualsRipgrep(t *testing.T) {
	rg, err := exec.LookPath("rg")
	if err != nil {
		testpeer.Missing(t, "ripgrep (rg)", "install the Debian package ripgrep (scripts/test does) to compare grep with it")
	}
	defer searchindex.SetRacyWindow(testWindow)()
	root := rgTree(t)
	build(t, root)
	idx := searchindex.Open(root)
	if st := idx.Status(); st.Dirty != 0 || st.Files < 300 {
		t.Fatalf("the index should vouch for every file: %+v", st)
	}
	c := &counting{idx: idx}
	l := &lister{counting: c}
	rgBase := []string{"--no-config", "--hidden", "-g", "!.git", "--no-ignore-global", "--no-ignore-parent",
		"--no-heading", "--color", "never", "--no-messages"}
	tests := []struct {
		in map[string]any
		rg []string
	}{
		{map[string]any{"pattern": "ErrUnexpectedEOF", "output_mode": "content"}, []string{"-n", "ErrUnexpectedEOF"}},
		{map[string]any{"pattern": "parseCertificate", "word": true, "output_mode": "content"}, []string{"-n", "-w", "parseCertificate"}},
		{map[string]any{"pattern": "sync.OnceValues", "literal": true}, []string{"-l", "-F", "sync.OnceValues"}},
		{map[string]any{"pattern": "OnceValues", "literal": true}, []string{"-l", "-F", "OnceValues"}},
		{map[string]any{"pattern": "context deadline", "case_insensitive": true, "output_mode": "content"}, []string{"-n", "-i", "context deadline"}},
		{map[string]any{"pattern": `func \(\w+ \*\w+\) WriteTo\(`, "output_mode": "content"}, // \w is ASCII in grep, Unicode in rg; rg is told.
			[]string{"-n", `func \((?-u:\w)+ \*(?-u:\w)+\) WriteTo\(`}},
		{map[string]any{"pattern": "[A-Z]{3}[0-9]{4}", "output_mode": "content"}, []string{"-n", "[A-Z]{3}[0-9]{4}"}},
		{map[string]any{"pattern": "readLoop|WriteTo", "output_mode": "count"}, []string{"-c", "readLoop|WriteTo"}},
		{map[string]any{"pattern": "kelvin", "case_insensitive": true, "output_mode": "content"}, []string{"-n", "-i", "kelvin"}},
		{map[string]any{"pattern": "grüße|STRASSE", "case_insensitive": true, "output_mode": "content"}, []string{"-n", "-i", "grüße|STRASSE"}},
		{map[string]any{"pattern": "日本語", "type": "go", "output_mode": "content"}, []string{"-n", "-t", "go", "日本語"}},
		{map[string]any{"pattern": "Reader", "glob": "pkg1/**", "output_mode": "count"}, []string{"-c", "-g", "pkg1/**", "Reader"}},
		{map[string]any{"pattern": "^\treturn io\\.Err", "output_mode": "content"}, []string{"-n", "^\treturn io\\.Err"}},
		{map[string]any{"pattern": "zzNoSuchStringzz"}, []string{"-l", "zzNoSuchStringzz"}},
	}
	for _, tt := range tests {
		tt.in["head_limit"] = 0
		args := append(slices.Clone(rgBase), tt.rg...)
		cmd := exec.Command(rg, args...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "RIPGREP_CONFIG_PATH=")
		out, err := cmd.Output()
		if ee, ok := err.(*exec.ExitError); err != nil && !(ok && ee.ExitCode() == 1 && len(out) == 0) {
			t.Fatalf("rg %q: %v", tt.rg, err)
		}
		want := sortedLines(string(out), false)
		if len(want) == 0 && tt.in["pattern"] != "zzNoSuchStringzz" {
			t.Fatalf("rg %q found nothing: the generated tree should exercise the query", tt.rg)
		}
		got := sortedLines(grep(t, root, c, tt.in), true)
		if listed := sortedLines(grep(t, root, l, tt.in), true); !slices.Equal(listed, got) {
			t.Errorf("grep %v with the index's list and with its walk disagree:\n list: %q\n walk: %q", tt.in, listed, got)
		}
		if scan := sortedLines(grep(t, root, nil, tt.in), true); !slices.Equal(got, scan) {
			t.Errorf("grep %v with the index and without disagree:\n with: %q\n scan: %q", tt.in, got, scan)
		}
		if !slices.Equal(got, want) {
			t.Errorf("grep %v with the index and rg %q disagree:\n ours:   %q\n theirs: %q", tt.in, tt.rg, got, want)
		}
	}
	// A glob can admit what the ignore files leave out: only the walk
	// can say, so those searches are not listed; nor is a pattern
	// without a trigram, which reads every file anyway.
	listable := 0
	for _, tt := range tests {
		if tt.in["glob"] == nil && tt.in["pattern"] != "[A-Z]{3}[0-9]{4}" {
			listable++
		}
	}
	if c.skipped.Load() == 0 || l.listed.Load() != int64(listable) {
		t.Errorf("the index skipped %d files and listed %d of %d searches: the comparison did not exercise it", c.skipped.Load(), l.listed.Load(), listable)
	}
}

// sortedLines normalises a result for comparison: grep's header line
// ("Found …", "No matches …") and notices dropped, rg's "./" prefixes
// and CRs dropped, invalid UTF-8 shown as grep shows it.
func sortedLines(out string, ours bool) []string {
	var lines []string
	for i, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		if ours && (i == 0 || strings.HasPrefix(l, "[")) {
			continue // "error=false", then the result
		}
		if ours && i == 1 && (strings.HasPrefix(l, "Found ") || strings.HasPrefix(l, "No ")) {
			continue
		}
		l = strings.ToValidUTF8(strings.TrimSuffix(l, "\r"), "\uFFFD")
		if l != "" {
			lines = append(lines, strings.TrimPrefix(l, "./"))
		}
	}
	slices.Sort(lines)
	return lines
}
