package search

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/indusagi/induscode/tool"
)

// grepTree is the fixture most grep tests search.
var grepTree = map[string]string{
	".git/HEAD":            "ref: refs/heads/main\n",
	".gitignore":           "*.log\nvendor/\n",
	"main.go":              "package main\n\nfunc main() {\n\tprintln(\"Hello\")\n}\n",
	"util/strings.go":      "package util\n\n// Hello says hello.\nfunc Hello() string { return \"hello\" }\n",
	"util/strings_test.go": "package util\n\nfunc TestHello(t *testing.T) {}\n",
	"web/app.ts":           "export const hello = () => 'HELLO';\n",
	"web/app.js":           "const hello = 1;\n",
	"docs/readme.md":       "# Hello\n\nSay hello.\nline four\nline five\nline six\nhello again\n",
	"debug.log":            "hello from the log\n",
	"vendor/dep.go":        "package dep // hello\n",
	".hidden/notes.txt":    "hello hidden\n",
	"bin/blob":             "hello\x00binary\n",
	"unicode.txt":          "Grüße, HÉLLO wörld\n日本語 hello\n",
}

func run(t *testing.T, tl tool.Tool, dir, input string) tool.Result {
	t.Helper()
	return tl.Run(t.Context(), json.RawMessage(input), tool.NewEnv(dir))
}

func TestGrep(t *testing.T) {
	t.Parallel()
	root := tree(t, grepTree)
	g := GrepTool(Options{})
	tests := []struct {
		name    string
		input   string
		want    string // the whole text output
		isError bool
	}{
		{"files with matches by default, sorted, ignore-aware, hidden included, binary skipped",
			`{"pattern":"hello"}`,
			"Found 6 files\n.hidden/notes.txt\ndocs/readme.md\nunicode.txt\nutil/strings.go\nweb/app.js\nweb/app.ts", false},
		{"case insensitive",
			`{"pattern":"hello","case_insensitive":true,"glob":"*.go"}`,
			"Found 3 files\nmain.go\nutil/strings.go\nutil/strings_test.go", false},
		{"content with line numbers",
			`{"pattern":"Hello","output_mode":"content","glob":"*.go"}`,
			"main.go:4:\tprintln(\"Hello\")\nutil/strings.go:3:// Hello says hello.\nutil/strings.go:4:func Hello() string { return \"hello\" }\nutil/strings_test.go:3:func TestHello(t *testing.T) {}", false},
		{"content without line numbers",
			`{"pattern":"^package","output_mode":"content","line_numbers":false,"type":"go"}`,
			"main.go:package main\nutil/strings.go:package util\nutil/strings_test.go:package util", false},
		{"context lines and separators",
			`{"pattern":"hello","output_mode":"content","path":"docs","context":1}`,
			"docs/readme.md-2-\ndocs/readme.md:3:Say hello.\ndocs/readme.md-4-line four\n--\ndocs/readme.md-6-line six\ndocs/readme.md:7:hello again", false},
		{"before overrides context",
			`{"pattern":"again","output_mode":"content","path":"docs","context":3,"before":1}`,
			"docs/readme.md-6-line six\ndocs/readme.md:7:hello again", false},
		{"count",
			`{"pattern":"hello","output_mode":"count","case_insensitive":true,"path":"docs"}`,
			"Found 3 matching lines in 1 file\ndocs/readme.md:3", false},
		{"glob with braces", `{"pattern":"hello","glob":"*.{ts,js}"}`, "Found 2 files\nweb/app.js\nweb/app.ts", false},
		{"comma separated globs", `{"pattern":"hello","glob":"*.ts,*.md"}`, "Found 2 files\ndocs/readme.md\nweb/app.ts", false},
		{"negated glob", `{"pattern":"hello","glob":"!web/ !*.txt"}`, "Found 2 files\ndocs/readme.md\nutil/strings.go", false},
		{"glob with a slash is anchored", `{"pattern":"hello","glob":"util/*.go"}`, "Found 1 file\nutil/strings.go", false},
		{"a glob whitelists ignored files (as rg -g)", `{"pattern":"hello","glob":"*.log"}`, "Found 1 file\ndebug.log", false},
		{"type", `{"pattern":"hello","type":"ts"}`, "Found 1 file\nweb/app.ts", false},
		{"type alias", `{"pattern":"hello","type":"javascript"}`, "Found 1 file\nweb/app.js", false},
		{"literal", `{"pattern":"println(\"","literal":true}`, "Found 1 file\nmain.go", false},
		{"unicode case folding", `{"pattern":"héllo","case_insensitive":true}`, "Found 1 file\nunicode.txt", false},
		{"unicode literal", `{"pattern":"日本語","output_mode":"content"}`, "unicode.txt:2:日本語 hello", false},
		{"multiline", `{"pattern":"main\\(\\) \\{\\n\\tprintln","multiline":true,"output_mode":"content"}`,
			"main.go:3:func main() {\nmain.go:4:\tprintln(\"Hello\")", false},
		{"single file path", `{"pattern":"func","path":"main.go","output_mode":"content"}`, "main.go:3:func main() {", false},
		{"explicitly searched binary file", `{"pattern":"hello","path":"bin/blob"}`,
			"No matches for \"hello\" in bin/blob.\n[bin/blob is a binary file (it contains NUL bytes); grep does not search binary files.]", false},
		{"no matches", `{"pattern":"zebra"}`, "No matches for \"zebra\" in the working directory.", false},
		{"head_limit and offset page files", `{"pattern":"hello","head_limit":2,"offset":2}`,
			"Found 6 files\nunicode.txt\nutil/strings.go\n[Showing files 3-4 of 6. Use offset=4 for the next page, or narrow the search with path, glob or type.]", false},
		{"last page", `{"pattern":"hello","head_limit":4,"offset":4}`,
			"Found 6 files\nweb/app.js\nweb/app.ts\n[Showing files 5-6 of 6.]", false},
		{"offset past the end", `{"pattern":"hello","offset":10}`,
			"No results at offset 10: the search found 6 files. Use a smaller offset.", false},
		{"head_limit pages content lines", `{"pattern":"hello","output_mode":"content","case_insensitive":true,"path":"docs","head_limit":2}`,
			"docs/readme.md:1:# Hello\ndocs/readme.md:3:Say hello.\n[Showing lines 1-2; more matches exist. Use offset=2 for the next page, or narrow the search with path, glob or type.]", false},
		{"head_limit 0 is unlimited", `{"pattern":"hello","case_insensitive":true,"output_mode":"count","head_limit":0}`,
			"Found 11 matching lines in 8 files\n.hidden/notes.txt:1\ndocs/readme.md:3\nmain.go:1\nunicode.txt:1\nutil/strings.go:2\nutil/strings_test.go:1\nweb/app.js:1\nweb/app.ts:1", false},

		{"bad regex", `{"pattern":"func("}`, "grep: invalid regular expression \"func(\": missing closing ): `func(`; escape special characters with a backslash, or set literal: true to search for the text as written", true},
		{"missing path", `{"pattern":"x","path":"nope"}`, "grep: path \"nope\" does not exist", true},
		{"unknown type", `{"pattern":"x","type":"cobol"}`, "grep: unknown file type \"cobol\"; known types: asm, c,", true},
		{"bad glob", `{"pattern":"x","glob":"[a-"}`, "grep: glob \"[a-\" is not a valid glob pattern", true},
		{"bad output mode", `{"pattern":"x","output_mode":"lines"}`, "invalid input for grep: field output_mode:", true},
		{"negative head_limit", `{"pattern":"x","head_limit":-1}`, "invalid input for grep: field head_limit:", true},
		{"context too large", `{"pattern":"x","context":1000}`, "invalid input for grep: field context:", true},
		{"missing pattern", `{}`, "invalid input for grep:", true},
		{"unknown field", `{"pattern":"x","-i":true}`, "invalid input for grep:", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res := run(t, g, root, tt.input)
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

func TestGrepPathsRelativeToWorkingDir(t *testing.T) {
	t.Parallel()
	root := tree(t, grepTree)
	g := GrepTool(Options{})
	// From a subdirectory, results outside it are shown relative (…/x is
	// not under the working directory, so it is absolute).
	res := run(t, g, filepath.Join(root, "util"), `{"pattern":"Hello","path":"../docs"}`)
	want := "Found 1 file\n" + filepath.Join(root, "docs", "readme.md")
	if got := res.PlainText(); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	res = run(t, g, root, `{"pattern":"Hello","path":"@util","output_mode":"count"}`)
	if got := res.PlainText(); got != "Found 3 matching lines in 2 files\nutil/strings.go:2\nutil/strings_test.go:1" {
		t.Errorf("a leading @ is stripped and paths stay relative: %q", got)
	}
}

func TestGrepBudget(t *testing.T) {
	t.Parallel()
	root := tree(t, grepTree)
	res := run(t, GrepTool(Options{Budget: time.Nanosecond}), root, `{"pattern":"hello"}`)
	if res.IsError || !strings.Contains(res.PlainText(), "[Search stopped at its 1ns time budget: results are partial.") {
		t.Errorf("an exhausted budget gives partial results with a notice: %s", res.PlainText())
	}
}

func TestGrepCancelled(t *testing.T) {
	t.Parallel()
	root := tree(t, grepTree)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	res := GrepTool(Options{}).Run(ctx, json.RawMessage(`{"pattern":"hello"}`), tool.NewEnv(root))
	if !res.IsError || !strings.Contains(res.PlainText(), "cancelled") {
		t.Errorf("a cancelled call is an error: %s", res.PlainText())
	}
}

func TestGrepUnreadableFile(t *testing.T) {
	t.Parallel()
	if os.Geteuid() == 0 {
		t.Skip("root reads every file")
	}
	root := tree(t, map[string]string{"a.txt": "hello\n", "b.txt": "hello\n"})
	if err := os.Chmod(filepath.Join(root, "b.txt"), 0); err != nil {
		t.Fatal(err)
	}
	got := run(t, GrepTool(Options{}), root, `{"pattern":"hello"}`).PlainText()
	if !strings.Contains(got, "a.txt") || !strings.Contains(got, "[1 path could not be read") {
		t.Errorf("an unreadable file is skipped with a notice: %s", got)
	}
}

func TestOutputModesHandled(t *testing.T) {
	t.Parallel()
	for _, m := range outputModes {
		if m.String() == "unknown" {
			t.Errorf("mode %d has no name", m)
		}
		if got, err := parseMode(m.String()); err != nil || got != m {
			t.Errorf("parseMode(%q) = %v, %v", m, got, err)
		}
		dir := tree(t, map[string]string{"a": "x\n"})
		out := run(t, GrepTool(Options{}), dir, `{"pattern":"x","output_mode":"`+m.String()+`"}`).PlainText()
		if !strings.HasPrefix(out, "a") && !strings.HasPrefix(out, "Found") {
			t.Errorf("mode %v renders %q, not the match", m, out)
		}
	}
}

func TestGrepSchema(t *testing.T) {
	t.Parallel()
	s := GrepTool(Options{}).Spec()
	if s.Name != "grep" || !s.ReadOnly {
		t.Fatalf("spec = %+v", s)
	}
	var schema struct {
		Required   []string                   `json:"required"`
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(s.InputSchema, &schema); err != nil {
		t.Fatal(err)
	}
	if len(schema.Required) != 1 || schema.Required[0] != "pattern" {
		t.Errorf("required = %v, want [pattern]", schema.Required)
	}
	for _, want := range []string{`"default":250`, `"minimum":0`} {
		if !strings.Contains(string(schema.Properties["head_limit"]), want) {
			t.Errorf("head_limit schema %s lacks %s", schema.Properties["head_limit"], want)
		}
	}
	if !strings.Contains(string(schema.Properties["output_mode"]), `"enum":["files_with_matches","content","count"]`) {
		t.Errorf("output_mode schema: %s", schema.Properties["output_mode"])
	}
}
