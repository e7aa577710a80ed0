package lsp

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/indusagi/induscode/internal/testpeer"
	"github.com/indusagi/induscode/tool"
	"github.com/indusagi/induscode/tools/files"
)

// testTimeout replaces the 3 s default in tests: two busy cores under the
// race detector make every server slower than it is for a user.
const testTimeout = 60 * time.Second

// gopls finds the Go language server the test command installs (on PATH,
// or in GOPATH/bin where go install puts it).
func gopls(t testing.TB) string {
	t.Helper()
	if p, err := exec.LookPath("gopls"); err == nil {
		return p
	}
	if out, err := exec.Command("go", "env", "GOPATH").Output(); err == nil {
		p := filepath.Join(strings.TrimSpace(string(out)), "bin", "gopls")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	testpeer.Missing(t, "gopls", "go install golang.org/x/tools/gopls@v0.23.0 (./scripts/test does)")
	return ""
}

// rig is a session with one language server, and the real read, write and
// edit tools wrapped for diagnostics.
type rig struct {
	dir   string
	env   *tool.Env
	m     *Manager
	read  tool.Tool
	write tool.Tool
	edit  tool.Tool
}

func newRig(t testing.TB, lang string, srv Server, files_ map[string]string) *rig {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files_ {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := tool.NewEnv(dir)
	m := NewManager(dir, Config{Servers: map[string]Server{lang: srv}, Timeout: testTimeout})
	Use(env, m)
	t.Cleanup(func() { env.Close() })
	return &rig{dir: dir, env: env, m: m, read: files.ReadTool(), write: Diagnose(files.WriteTool()), edit: Diagnose(files.EditTool())}
}

func (r *rig) run(t testing.TB, tl tool.Tool, input any) tool.Result {
	t.Helper()
	b, err := json.Marshal(input)
	if err != nil {
		t.Fatal(err)
	}
	return tl.Run(context.Background(), b, r.env)
}

func (r *rig) symbols(t *testing.T, in SymbolsInput) tool.Result {
	t.Helper()
	return r.run(t, SymbolsTool(), in)
}

// editAndDiagnose reads path, replaces old with new, and returns the
// edit's text.
func (r *rig) editAndDiagnose(t testing.TB, path, old, new string) string {
	t.Helper()
	if res := r.run(t, r.read, map[string]any{"path": path}); res.IsError {
		t.Fatalf("read %s: %s", path, res.PlainText())
	}
	res := r.run(t, r.edit, map[string]any{"path": path, "old_string": old, "new_string": new})
	if res.IsError {
		t.Fatalf("edit %s: %s", path, res.PlainText())
	}
	return res.PlainText()
}

var goModule = map[string]string{
	"go.mod":         "module example.com/m\n\ngo 1.22\n",
	"greet/greet.go": "package greet\n\n// Hello greets.\nfunc Hello(name string) string { return \"hello \" + name }\n",
	"a/a.go":         "package a\n\nimport \"example.com/m/greet\"\n\nfunc A() string { return greet.Hello(\"a\") }\n",
	"b/b.go":         "package b\n\nimport \"example.com/m/greet\"\n\nfunc B() string { return greet.Hello(\"b\") + greet.Hello(\"bb\") }\n",
	"main.go":        "package main\n\nimport (\n\t\"fmt\"\n\n\t\"example.com/m/greet\"\n)\n\nfunc main() {\n\tvar n int = 1\n\tfmt.Println(greet.Hello(\"main\"), n)\n}\n",
}

// An edit that breaks the build shows the compiler's error in its result,
// marked as introduced; the fix shows none.
func TestGoDiagnosticsInEditResult(t *testing.T) {
	t.Parallel()
	r := newRig(t, "go", Server{Command: gopls(t), Filetypes: []string{".go"}}, goModule)
	broke := r.editAndDiagnose(t, "main.go", "var n int = 1", `var n int = "one"`)
	if !strings.Contains(broke, "Diagnostics") || !regexp.MustCompile(`main\.go:10:\d+: error: .*"one".*int`).MatchString(broke) {
		t.Fatalf("edit that breaks the build:\n%s\nwant gopls's type error at main.go:10", broke)
	}
	fixed := r.editAndDiagnose(t, "main.go", `var n int = "one"`, "var n int = 2")
	if !strings.Contains(fixed, "Diagnostics: no errors or warnings in main.go.") {
		t.Fatalf("edit that fixes it:\n%s\nwant no diagnostics", fixed)
	}
	// A second error while one is already there: only the new one is
	// introduced.
	r.editAndDiagnose(t, "main.go", "var n int = 2", `var n int = "two"`)
	both := r.editAndDiagnose(t, "main.go", `fmt.Println(greet.Hello("main"), n)`, `fmt.Println(greet.Hello(1), n)`)
	_, diags, _ := strings.Cut(both, "Diagnostics introduced by this change")
	intro, before, _ := strings.Cut(diags, "already in main.go before this change")
	if !strings.Contains(intro, "cannot use 1") || strings.Contains(intro, `"two"`) || !strings.Contains(before, `"two"`) {
		t.Fatalf("an edit beside an existing error:\n%s\nwant the old error listed apart from the new one", both)
	}
}

// references by name finds every use gopls's own command line finds,
// across packages, and definition by position lands on the declaration.
func TestGoReferencesMatchGopls(t *testing.T) {
	t.Parallel()
	bin := gopls(t)
	r := newRig(t, "go", Server{Command: bin, Filetypes: []string{".go"}}, goModule)
	res := r.symbols(t, SymbolsInput{Action: ActionReferences, Name: "Hello", Path: "greet/greet.go"})
	if res.IsError {
		t.Fatal(res.PlainText())
	}
	got := locationsIn(res.PlainText())

	cmd := exec.Command(bin, "references", "-d", filepath.Join(r.dir, "greet/greet.go")+":4:6")
	cmd.Dir = r.dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("gopls references: %v\n%s", err, out)
	}
	var want []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		// path:line:col-col
		m := regexp.MustCompile(`^(.*):(\d+):(\d+)`).FindStringSubmatch(line)
		if m == nil {
			continue
		}
		rel, _ := filepath.Rel(r.dir, m[1])
		want = append(want, rel+":"+m[2]+":"+m[3])
	}
	slices.Sort(want)
	if len(want) != 5 || !slices.Equal(got, want) {
		t.Fatalf("symbols references = %v\ngopls references -d = %v (want 5: the declaration and 4 calls)", got, want)
	}

	def := r.symbols(t, SymbolsInput{Action: ActionDefinition, Path: "b/b.go", Line: 5, Column: 32})
	if def.IsError || !strings.HasPrefix(def.PlainText(), "greet/greet.go:4:6:") {
		t.Fatalf("definition at b/b.go:5:32 = %q, want greet/greet.go:4:6", def.PlainText())
	}
	syms := r.symbols(t, SymbolsInput{Action: ActionDocumentSymbols, Path: "main.go"})
	if !strings.Contains(syms.PlainText(), "main.go:9:6: function main") {
		t.Fatalf("document_symbols of main.go = %q", syms.PlainText())
	}
	hover := r.symbols(t, SymbolsInput{Action: ActionHover, Path: "a/a.go", Line: 5, Column: 32})
	if !strings.Contains(hover.PlainText(), "Hello(name string) string") {
		t.Fatalf("hover = %q", hover.PlainText())
	}
}

// locationsIn returns the path:line:col of each line of a symbols answer.
func locationsIn(text string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`(?m)^\s*([^\s:]+:\d+:\d+):`).FindAllStringSubmatch(text, -1) {
		out = append(out, m[1])
	}
	slices.Sort(out)
	return out
}

func nodeServer(t *testing.T, script string, args ...string) Server {
	t.Helper()
	return Server{Command: testpeer.Node(t), Args: append([]string{testpeer.NPMFile(t, script)}, args...)}
}

func TestTypeScriptDiagnosticsAndReferences(t *testing.T) {
	t.Parallel()
	srv := nodeServer(t, "typescript-language-server/lib/cli.mjs", "--stdio")
	srv.Filetypes = []string{".ts"}
	r := newRig(t, "typescript", srv, map[string]string{
		"tsconfig.json": `{"compilerOptions":{"strict":true,"target":"es2020","module":"commonjs"}}`,
		"greet.ts":      "export function hello(name: string): string {\n  return 'hello ' + name;\n}\n",
		"main.ts":       "import { hello } from './greet';\n\nconst n: number = 1;\nconsole.log(hello('a'), hello('b'), n);\n",
	})
	broke := r.editAndDiagnose(t, "main.ts", "const n: number = 1;", "const n: number = 'one';")
	if !regexp.MustCompile(`main\.ts:3:\d+: error: .*string.*number`).MatchString(broke) {
		t.Fatalf("edit that breaks the types:\n%s", broke)
	}
	res := r.symbols(t, SymbolsInput{Action: ActionReferences, Path: "greet.ts", Line: 1, Column: 17})
	if got := locationsIn(res.PlainText()); !slices.Equal(got, []string{"greet.ts:1:17", "main.ts:1:10", "main.ts:4:13", "main.ts:4:25"}) {
		t.Fatalf("references of hello = %v\n%s", got, res.PlainText())
	}
}

func TestPythonDiagnosticsAndReferences(t *testing.T) {
	t.Parallel()
	srv := nodeServer(t, "pyright/langserver.index.js", "--stdio")
	srv.Filetypes = []string{".py"}
	r := newRig(t, "python", srv, map[string]string{
		"greet.py": "def hello(name: str) -> str:\n    return 'hello ' + name\n",
		"main.py":  "from greet import hello\n\nn: int = 1\nprint(hello('a'), hello('b'), n)\n",
	})
	broke := r.editAndDiagnose(t, "main.py", "n: int = 1", "n: int = 'one'")
	if !regexp.MustCompile(`main\.py:3:\d+: error: .*'one'.*int`).MatchString(broke) {
		t.Fatalf("edit that breaks the types:\n%s", broke)
	}
	res := r.symbols(t, SymbolsInput{Action: ActionReferences, Path: "greet.py", Line: 1, Column: 5})
	if got := locationsIn(res.PlainText()); !slices.Equal(got, []string{"greet.py:1:5", "main.py:1:19", "main.py:4:19", "main.py:4:7"}) {
		t.Fatalf("references of hello = %v\n%s", got, res.PlainText())
	}
}

// A server that crashes, hangs at start or is missing never fails an edit:
// the edit is made and its result says why there are no diagnostics.
func TestBrokenServersDoNotFailEdits(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		srv  Server
		want string
	}{
		{"missing", Server{Command: "no-such-language-server", Install: "npm i no-such"}, "not on PATH; install it with: npm i no-such"},
		{"crashes", Server{Command: "sh", Args: []string{"-c", "echo boom >&2; exit 3"}}, "boom"},
		// Stand-in for a server that never answers initialize.
		{"hangs", Server{Command: "sleep", Args: []string{"600"}}, "still starting"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.srv.Filetypes = []string{".go"}
			r := newRig(t, "go", tc.srv, map[string]string{"x.go": "package x\n"})
			r.m.cfg.Timeout = 200 * time.Millisecond
			start := time.Now()
			text := r.editAndDiagnose(t, "x.go", "package x", "package y")
			if b, _ := os.ReadFile(filepath.Join(r.dir, "x.go")); string(b) != "package y\n" {
				t.Fatalf("the edit was not made: %q", b)
			}
			if !strings.Contains(text, "Diagnostics of x.go are unavailable") || !strings.Contains(text, tc.want) {
				t.Fatalf("result:\n%s\nwant diagnostics unavailable, saying %q", text, tc.want)
			}
			if took := time.Since(start); took > coldStart+20*time.Second {
				t.Errorf("the edit took %s", took)
			}
		})
	}
}

// A file type with no server is edited without any language server
// starting.
func TestNoServerForFileTypeCostsNothing(t *testing.T) {
	t.Parallel()
	r := newRig(t, "go", Server{Command: "no-such-language-server", Filetypes: []string{".go"}}, map[string]string{"notes.md": "hello\n"})
	text := r.editAndDiagnose(t, "notes.md", "hello", "bye")
	if strings.Contains(text, "Diagnostics") {
		t.Fatalf("a Markdown edit mentions diagnostics:\n%s", text)
	}
	if st := r.m.Status(); st[0].State != "not installed" {
		t.Fatalf("status %+v: nothing should have been started", st)
	}
}

// A repository's settings cannot name a language server to run (it would
// run on the first edit as the user, unasked); they can turn one off.
func TestWorkspaceSettingsCannotNameAServer(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	dir := t.TempDir()
	write := func(body string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Join(dir, ".indusvx"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, ".indusvx", "settings.json"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(`{"lsp": {"go": {"command": "sh", "args": ["-c", "touch pwned"], "filetypes": [".go"]}}}`)
	cfg, err := LoadConfig(dir)
	if err == nil || !strings.Contains(err.Error(), "may not") || cfg.Servers["go"].Command != "gopls" {
		t.Fatalf("a workspace row naming a command: %v, go server %+v; want it refused and gopls kept", err, cfg.Servers["go"])
	}
	write(`{"lsp": {"python": {"disabled": true}}}`)
	cfg, err = LoadConfig(dir)
	if _, on := cfg.Servers["python"]; err != nil || on {
		t.Fatalf("disabling python from the workspace: %v, servers %v", err, cfg.Servers)
	}
	write(`{"lsp": `)
	if _, err := LoadConfig(dir); err == nil || !strings.Contains(err.Error(), "settings.json") {
		t.Fatalf("broken settings: %v, want an error naming the file", err)
	}
}
