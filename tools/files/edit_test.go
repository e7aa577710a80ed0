package files

import (
	"crypto/sha256"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/indusagi/induscode/internal/linediff"
	"github.com/indusagi/induscode/tool"
)

const goFile = `package main

import "fmt"

func main() {
	fmt.Println("hello")
	fmt.Println("world")
}

func helper() int {
	return 42
}
`

func TestEdit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		content string // initial content of f.go; "-" means no file
		noRead  bool   // skip the read before the edit
		between func(t *testing.T, path string)
		in      map[string]any
		wantErr []string // nil means success
		want    []string // substrings of the success text
		after   string   // the file afterwards ("" with wantErr: unchanged)
	}{
		{name: "single replacement shows the region with 4 lines of context",
			content: goFile,
			in:      map[string]any{"old_string": `fmt.Println("world")`, "new_string": `fmt.Println("there")`},
			want: []string{"Edited f.go: 1 replacement. The changed region now reads:\n" +
				"     3\timport \"fmt\"\n     4\t\n     5\tfunc main() {\n     6\t\tfmt.Println(\"hello\")\n" +
				"     7\t\tfmt.Println(\"there\")\n" +
				"     8\t}\n     9\t\n    10\tfunc helper() int {\n    11\t\treturn 42"},
			after: strings.Replace(goFile, "world", "there", 1)},
		{name: "not found names the closest text and its line",
			content: goFile,
			in:      map[string]any{"old_string": "func helper() int {\n\treturn 24\n}", "new_string": "x"},
			wantErr: []string{"old_string was not found", "closest text is at line 10", "    10\tfunc helper() int {", "    11\t\treturn 42"}},
		{name: "whitespace-only difference is pointed out",
			content: goFile,
			in:      map[string]any{"old_string": "func main() {\n    fmt.Println(\"hello\")", "new_string": "x"},
			wantErr: []string{"line 5 matches it except for whitespace", "     6\t\tfmt.Println(\"hello\")"}},
		{name: "line-number prefixes copied from read are pointed out",
			content: goFile,
			in:      map[string]any{"old_string": "    10\tfunc helper() int {\n    11\t\treturn 42", "new_string": "x"},
			wantErr: []string{"the line numbers and tabs that read adds; without them it matches at line 10"}},
		{name: "nothing similar says so",
			content: goFile,
			in:      map[string]any{"old_string": "zzzz qqqq", "new_string": "x"},
			wantErr: []string{"Nothing in the file resembles it"}},
		{name: "several occurrences need replace_all",
			content: goFile,
			in:      map[string]any{"old_string": "fmt.Println", "new_string": "log.Println"},
			wantErr: []string{"occurs 2 times in the file (at lines 6, 7)", "replace_all"}},
		{name: "replace_all changes every occurrence",
			content: goFile,
			in:      map[string]any{"old_string": "fmt.Println", "new_string": "log.Println", "replace_all": true},
			want:    []string{"2 replacements"},
			after:   strings.ReplaceAll(goFile, "fmt.Println", "log.Println")},
		{name: "identical strings are refused",
			content: goFile,
			in:      map[string]any{"old_string": "main", "new_string": "main"},
			wantErr: []string{"identical"}},
		{name: "deleting text",
			content: "keep\ndrop me\nkeep too\n",
			in:      map[string]any{"old_string": "drop me\n", "new_string": ""},
			after:   "keep\nkeep too\n"},
		{name: "edit without a read is refused",
			content: goFile, noRead: true,
			in:      map[string]any{"old_string": "42", "new_string": "43"},
			wantErr: []string{"this session has not read it", "Read it first"}},
		{name: "a change since the read is refused",
			content: goFile,
			between: func(t *testing.T, p string) { writeFile(t, p, strings.Replace(goFile, "42", "99", 1)) },
			in:      map[string]any{"old_string": "func helper", "new_string": "func helper2"},
			wantErr: []string{"changed since it was read"},
			after:   strings.Replace(goFile, "42", "99", 1)},
		{name: "empty old_string creates a missing file",
			content: "-",
			in:      map[string]any{"old_string": "", "new_string": "package x\n"},
			want:    []string{"Created f.go (10 bytes, 1 line)."},
			after:   "package x\n"},
		{name: "empty old_string on an existing file is refused",
			content: goFile,
			in:      map[string]any{"old_string": "", "new_string": "package x\n"},
			wantErr: []string{"already exists; an empty old_string only creates"}},
		{name: "a missing file without empty old_string says how to create it",
			content: "-",
			in:      map[string]any{"old_string": "a", "new_string": "b"},
			wantErr: []string{"f.go does not exist", "edit with an empty old_string"}},
		{name: "CRLF file matched with LF strings stays CRLF",
			content: "one\r\ntwo\r\nthree\r\n",
			in:      map[string]any{"old_string": "one\ntwo\n", "new_string": "1\n2\n2.5\n"},
			want:    []string{"     1\t1\n     2\t2\n     3\t2.5\n     4\tthree"},
			after:   "1\r\n2\r\n2.5\r\nthree\r\n"},
		{name: "single-line insert into a CRLF file gets CRLF",
			content: "a\r\nb\r\n",
			in:      map[string]any{"old_string": "a", "new_string": "a\nA"},
			after:   "a\r\nA\r\nb\r\n"},
		{name: "BOM is kept and need not be matched",
			content: "\ufeffname = 1\nother = 2\n",
			in:      map[string]any{"old_string": "name = 1", "new_string": "name = 10"},
			want:    []string{"     1\tname = 10"},
			after:   "\ufeffname = 10\nother = 2\n"},
		{name: "BOM and CRLF together",
			content: "\ufeffa\r\nb\r\n",
			in:      map[string]any{"old_string": "a\nb", "new_string": "b\na"},
			after:   "\ufeffb\r\na\r\n"},
		{name: "mixed line ends keep their mix",
			content: "lf1\nlf2\ncr1\r\ncr2\r\nlf3\n",
			in:      map[string]any{"old_string": "cr1\ncr2", "new_string": "CR1\nCR2"},
			after:   "lf1\nlf2\nCR1\r\nCR2\r\nlf3\n"},
		{name: "batch applies in order, each to the result of the one before",
			content: goFile,
			in: map[string]any{"edits": []map[string]any{
				{"old_string": `"hello"`, "new_string": `"hi"`},
				{"old_string": `fmt.Println("hi")`, "new_string": `fmt.Print("hi")`},
				{"old_string": "42", "new_string": "7"},
			}},
			want:  []string{"Edited f.go: 3 replacements."},
			after: strings.Replace(strings.Replace(goFile, `fmt.Println("hello")`, `fmt.Print("hi")`, 1), "42", "7", 1)},
		{name: "batch is rolled back on a bad step",
			content: goFile,
			in: map[string]any{"edits": []map[string]any{
				{"old_string": "42", "new_string": "7"},
				{"old_string": "does not exist", "new_string": "x"},
				{"old_string": "main", "new_string": "Main"},
			}},
			wantErr: []string{"edits[1] failed: old_string was not found", "No edit of the batch was applied; the file is unchanged"}},
		{name: "batch can create then edit",
			content: "-",
			in: map[string]any{"edits": []map[string]any{
				{"old_string": "", "new_string": "a\nb\n"},
				{"old_string": "b", "new_string": "c"},
			}},
			want:  []string{"Created f.go", "1 replacement after creating it"},
			after: "a\nc\n"},
		{name: "both input forms at once are refused",
			content: goFile,
			in:      map[string]any{"old_string": "a", "new_string": "b", "edits": []map[string]any{{"old_string": "a", "new_string": "b"}}},
			wantErr: []string{"not both"}},
		{name: "missing new_string is refused",
			content: goFile,
			in:      map[string]any{"old_string": "a"},
			wantErr: []string{"new_string is missing"}},
		{name: "binary file is refused",
			content: "\x7fELF\x00\x00\x00binary",
			in:      map[string]any{"old_string": "binary", "new_string": "text"},
			wantErr: []string{"binary file (ELF executable)"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env, dir := newEnv(t)
			p := filepath.Join(dir, "f.go")
			if tc.content != "-" {
				writeFile(t, p, tc.content)
				if !tc.noRead {
					env.Reads.Record(recordOf(t, p))
				}
			}
			if tc.between != nil {
				tc.between(t, p)
			}
			before, _ := os.ReadFile(p)
			in := map[string]any{"path": "f.go"}
			for k, v := range tc.in {
				in[k] = v
			}
			r := call(t, EditTool(), env, in)
			if tc.wantErr != nil {
				mustFail(t, r, tc.wantErr...)
				after, _ := os.ReadFile(p)
				if string(after) != string(before) {
					t.Errorf("a failed edit changed the file:\n%q\nwas\n%q", after, before)
				}
				return
			}
			got := mustOK(t, r)
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("text %q does not contain %q", short(got), w)
				}
			}
			if tc.after != "" {
				if on := readFile(t, p); on != tc.after {
					t.Errorf("file is\n%q\nwant\n%q", on, tc.after)
				}
			}
			checkDiffBlock(t, r, "f.go", string(before), readFile(t, p))
		})
	}
}

// recordOf reads path the way the read tool does and returns its record;
// for a file read refuses (a binary one) it makes the record itself.
func recordOf(t *testing.T, path string) tool.ReadRecord {
	t.Helper()
	env := tool.NewEnv(filepath.Dir(path))
	if r := call(t, ReadTool(), env, map[string]any{"path": path}); r.IsError {
		data := readFile(t, path)
		return tool.ReadRecord{Path: path, Size: int64(len(data)), Hash: sha256.Sum256([]byte(data))}
	}
	rec, ok := env.Reads.Lookup(path)
	if !ok {
		t.Fatalf("read of %s recorded nothing", path)
	}
	return rec
}

// checkDiffBlock checks edit's JSON block: the path, and a unified diff
// that turns the old content into the new one.
func checkDiffBlock(t *testing.T, r tool.Result, path, before, after string) {
	t.Helper()
	var blk *tool.Block
	for i := range r.Blocks {
		if r.Blocks[i].Kind == tool.KindJSON {
			blk = &r.Blocks[i]
		}
	}
	if blk == nil {
		t.Fatal("no JSON block in the result")
	}
	var res editResult
	if err := json.Unmarshal(blk.JSON, &res); err != nil {
		t.Fatal(err)
	}
	if res.Path != path {
		t.Errorf("JSON path %q, want %q", res.Path, path)
	}
	head := "--- a/" + path + "\n+++ b/" + path + "\n"
	if res.Created {
		head = "--- /dev/null\n+++ b/" + path + "\n"
		before = ""
	}
	if !strings.HasPrefix(res.Diff, head) {
		t.Errorf("diff does not start with %q: %q", head, res.Diff)
	}
	plain := func(s string) string { return strings.ReplaceAll(strings.TrimPrefix(s, "\ufeff"), "\r\n", "\n") }
	got, err := linediff.Apply(plain(before), res.Diff)
	if err != nil {
		t.Fatalf("diff does not apply: %v\n%s", err, res.Diff)
	}
	if got != plain(after) {
		t.Errorf("applying the diff gives\n%q\nwant\n%q\ndiff:\n%s", got, plain(after), res.Diff)
	}
}

// An edit right after an edit needs no read: the session knows what it
// wrote.
func TestEditTwiceWithoutReread(t *testing.T) {
	t.Parallel()
	env, dir := newEnv(t)
	p := filepath.Join(dir, "f.txt")
	writeFile(t, p, "a b c\n")
	mustOK(t, call(t, ReadTool(), env, map[string]any{"path": "f.txt"}))
	mustOK(t, call(t, EditTool(), env, map[string]any{"path": "f.txt", "old_string": "a", "new_string": "A"}))
	mustOK(t, call(t, EditTool(), env, map[string]any{"path": "f.txt", "old_string": "b", "new_string": "B"}))
	if got := readFile(t, p); got != "A B c\n" {
		t.Errorf("content %q", got)
	}
}

// edit is confined to the workspace like write, also through symlinks.
func TestEditSymlinkEscape(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	ws, out := filepath.Join(base, "ws"), filepath.Join(base, "out")
	os.Mkdir(ws, 0o755)
	writeFile(t, filepath.Join(out, "secret.txt"), "keep\n")
	os.Symlink(out, filepath.Join(ws, "escape"))
	env := tool.NewEnv(ws)
	mustOK(t, call(t, ReadTool(), env, map[string]any{"path": "escape/secret.txt"}))
	mustFail(t, call(t, EditTool(), env, map[string]any{"path": "escape/secret.txt", "old_string": "keep", "new_string": "lost"}),
		"leads through a symlink", "outside")
	mustFail(t, call(t, EditTool(), env, map[string]any{"path": "escape/new.txt", "old_string": "", "new_string": "x"}),
		"outside")
	if got := readFile(t, filepath.Join(out, "secret.txt")); got != "keep\n" {
		t.Errorf("outside file changed: %q", got)
	}
	if _, err := os.Stat(filepath.Join(out, "new.txt")); err == nil {
		t.Error("a file was created outside the workspace")
	}
}
