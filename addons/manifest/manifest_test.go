package manifest

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/indusagi/induscode/addons"
	"github.com/indusagi/induscode/internal/testtree"
	"github.com/indusagi/induscode/tool"
)

func TestParseManifestFaults(t *testing.T) {
	tests := []struct {
		name string
		src  string
		line int
		has  string // in the message
	}{
		{"no id", "version = \"1\"\n", 0, "field id: must be set"},
		{"blank id", "\nid = \"  \"\n", 2, "field id: must be set"},
		{"id with space", "id = \"my addon\"\n", 1, "field id"},
		{"id wrong type", "id = 5\n", 1, "field id: incompatible types"},
		{"bad toml", "id = \"a\"\n[[command]\nname = \"x\"\n", 3, "not valid TOML"},
		{"command without name", "id = \"a\"\n[[command]]\nname = \"ok\"\n[[command]]\nsummary = \"x\"\n", 4, "field command[2].name: must be set"},
		{"command with slash", "id = \"a\"\n[[command]]\nname = \"/deploy\"\n", 3, "without the leading slash"},
		{"command two words", "id = \"a\"\n[[command]]\nname = \"de ploy\"\n", 3, "one word"},
		{"gate without event", "id = \"a\"\n[[gate]]\nreason = \"r\"\n", 2, "field gate[1].event: must be set"},
		{"gate unknown event", "id = \"a\"\n[[gate]]\nevent = \"turn:end\"\n[[gate]]\nevent = \"tool:bfore\"\n", 5, `unknown event "tool:bfore"`},
		{"unknown field", "id = \"a\"\n[[gate]]\nevent = \"tool:before\"\nmatch_tool = \"bash\"\n", 4, "field gate.match_tool: unknown field"},
		{"name wrong type", "id = \"a\"\n[[command]]\nname = 3\n", 3, "field command.name"},
		{"hook bad matcher", "id = \"a\"\n[[hook]]\nevent = \"PreToolUse\"\ncommand = \"true\"\n[[hook]]\nevent = \"PreToolUse\"\nmatcher = \"Edit|(Write\"\ncommand = \"true\"\n", 7, `field hook[2].matcher: "Edit|(Write" is not a valid regular expression`},
		{"hook look-around", "id = \"a\"\n[[hook]]\nevent = \"tool:before\"\nmatcher = \"^(?!read)\"\ncommand = \"true\"\n", 4, "RE2"},
		{"hook unknown event", "id = \"a\"\n[[hook]]\nevent = \"Notification\"\ncommand = \"true\"\n", 3, `"Notification" is not a hook event; hook events are PreToolUse (tool:before)`},
		{"hook without command", "id = \"a\"\n\n[[hook]]\nevent = \"PostToolUse\"\n", 3, "field hook[1].command: must be set"},
		{"hook timeout", "id = \"a\"\n[[hook]]\nevent = \"SessionStart\"\ncommand = \"x\"\ntimeout = -1\n", 5, "field hook[1].timeout: -1"},
		{"hook timeout text", "id = \"a\"\n[[hook]]\nevent = \"SessionStart\"\ncommand = \"x\"\ntimeout = \"10s\"\n", 5, "field hook.timeout"},
		{"interceptor with nothing", "id = \"a\"\n[[interceptor]]\nmatch-tool = \"bash\"\n", 2, "needs set"},
		{"redact bad regexp", "id = \"a\"\n[[interceptor]]\nmatch-tool = \"bash\"\nredact = ['ok', 'a(b']\n", 4, `field interceptor[1].redact: "a(b" is not a valid regular expression`},
		{"redact matches empty", "id = \"a\"\n[[interceptor]]\nredact = ['x*']\n", 3, "matches the empty string"},
		{"set not a table", "id = \"a\"\n[[interceptor]]\nset = 3\n", 3, "field interceptor[1].set: must be a table"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("/w/manifest.toml", []byte(tt.src))
			var f *addons.Fault
			if !errors.As(err, &f) {
				t.Fatalf("err %v, want a *Fault", err)
			}
			if f.Kind != addons.LoadFault || f.File != "/w/manifest.toml" || f.Line != tt.line || !strings.Contains(f.Msg, tt.has) {
				t.Errorf("fault %q (line %d), want a load fault at line %d containing %q", f.Error(), f.Line, tt.line, tt.has)
			}
		})
	}
}

func TestParseManifestValid(t *testing.T) {
	d, err := Parse("m", []byte(`
id = "safety"
version = "1.0.0"

[[command]]
name = "deploy"
summary = "run the deploy script"
exec = "./scripts/deploy.sh"

[[command]]
name = "palette-only"

[[gate]]
event = "tool:before"
match-tool = "bash"
reason = "blocked by safety addon"

[[gate]]
event = "input:submit"
`))
	if err != nil {
		t.Fatal(err)
	}
	if d.ID != "safety" || d.Version != "1.0.0" || len(d.Commands) != 2 || len(d.Gates) != 2 ||
		d.Gates[0].MatchTool != "bash" || d.Commands[0].Exec != "./scripts/deploy.sh" {
		t.Errorf("descriptor %+v", d)
	}
}

func TestParseManifestHooks(t *testing.T) {
	d, err := Parse("m", []byte(`id = "h"

[[hook]]
event = "PreToolUse"
matcher = "bash"
command = "./block.sh"
timeout = 5

[[hook]] # after every tool
event = "tool:after"
command = "echo done"
`))
	if err != nil {
		t.Fatal(err)
	}
	want := []HookDecl{{Event: "PreToolUse", Matcher: "bash", Command: "./block.sh", Timeout: 5, Line: 3},
		{Event: "tool:after", Command: "echo done", Line: 9}}
	if !slices.Equal(d.Hooks, want) {
		t.Errorf("hooks %+v, want %+v", d.Hooks, want)
	}
}

func TestManifestGates(t *testing.T) {
	d, err := Parse("m", []byte(`
id = "g"
[[gate]]
event = "tool:before"
match-tool = "bash"
reason = "no shell"
[[gate]]
event = "input:submit"
[[gate]]
event = "compact:before"
match-tool = "bash"
`))
	if err != nil {
		t.Fatal(err)
	}
	h := addons.NewHost(addons.HostOptions{Loader: scripted{"/g": d.Addon()}})
	b := h.LoadAll(context.Background(), addons.Discovery{Paths: []string{"/g"}})
	ctx := context.Background()
	tests := []struct {
		name   string
		event  addons.Event
		p      addons.Payload
		stop   bool
		reason string
	}{
		{"matching tool stops", addons.ToolBefore, addons.ToolPayload{Name: "bash"}, true, "no shell"},
		{"other tool passes", addons.ToolBefore, addons.ToolPayload{Name: "read"}, false, ""},
		{"unconditional gate stops", addons.InputSubmit, addons.InputPayload{Text: "hi"}, true, "refused by addon g"},
		{"tool-scoped gate on a non-tool event never fires", addons.CompactBefore, addons.CompactPayload{}, false, ""},
	}
	for _, tt := range tests {
		out := b.Dispatch.Dispatch(ctx, tt.event, tt.p)
		if (out.Stop != nil) != tt.stop || tt.stop && (out.Stop.Reason != tt.reason || out.Stop.Addon != "g") {
			t.Errorf("%s: stop %+v, want stop=%v reason %q", tt.name, out.Stop, tt.stop, tt.reason)
		}
	}
	if !slices.Equal([]string{b.Gates[0].Tool, b.Gates[1].Tool}, []string{"bash", ""}) || b.Gates[0].Addon != "g" {
		t.Errorf("gate listing %+v", b.Gates)
	}
}

func TestManifestCommandRunsThroughExecHandle(t *testing.T) {
	d, err := Parse("m", []byte("id = \"c\"\n[[command]]\nname = \"greet\"\nexec = \"echo hi\"\n[[command]]\nname = \"inert\"\n[[command]]\nname = \"pick\"\nexec = \"echo $2\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	var gotCmd string
	var gotArgs []string
	handles := &addons.Handles{Exec: func(_ context.Context, command string, args []string) (addons.ExecOutcome, error) {
		gotCmd, gotArgs = command, args
		return addons.ExecOutcome{Stdout: "ok"}, nil
	}}
	h := addons.NewHost(addons.HostOptions{Loader: scripted{"/c": d.Addon()}, Handles: handles})
	b := h.LoadAll(context.Background(), addons.Discovery{Paths: []string{"/c"}})
	args := []string{`it's "quoted"`, "; rm -rf /"}
	if _, err := b.RunCommand(context.Background(), "greet", args, ""); err != nil {
		t.Fatal(err)
	}
	if gotCmd != `echo hi "$@"` || !slices.Equal(gotArgs, args) {
		t.Errorf("exec got %q with %q; want the args apart from the command text", gotCmd, gotArgs)
	}
	if _, err := b.RunCommand(context.Background(), "pick", args, ""); err != nil || gotCmd != "echo $2" {
		t.Errorf("exec got %q, %v; a command that names its parameters runs as written", gotCmd, err)
	}
	gotCmd = ""
	if out, err := b.RunCommand(context.Background(), "inert", args, ""); err != nil || gotCmd != "" || out != (addons.ExecOutcome{}) {
		t.Errorf("a command without exec ran %q (%v)", gotCmd, err)
	}
	noExec := addons.NewHost(addons.HostOptions{Loader: scripted{"/c": d.Addon()}}).LoadAll(context.Background(), addons.Discovery{Paths: []string{"/c"}})
	if _, err := noExec.RunCommand(context.Background(), "greet", nil, ""); err == nil || !strings.Contains(err.Error(), "no exec handle") {
		t.Errorf("without an exec handle: %v", err)
	}
}

func TestManifestLoaderShapes(t *testing.T) {
	dir := t.TempDir()
	testtree.Write(t, dir, map[string]string{
		"ok/manifest.toml": "id = \"ok\"\n",
		"mod.cjs":          "",
		"other.txt":        "",
	})
	ctx := context.Background()
	var l Loader
	if a, err := l.Load(ctx, filepath.Join(dir, "ok")); err != nil || a.ID != "ok" {
		t.Errorf("folder: %v, %v", a, err)
	}
	if a, err := l.Load(ctx, filepath.Join(dir, "ok", "manifest.toml")); err != nil || a.ID != "ok" {
		t.Errorf("manifest file: %v, %v", a, err)
	}
	if _, err := l.Load(ctx, filepath.Join(dir, "mod.cjs")); err == nil || !strings.Contains(err.Error(), "Tier 1") {
		t.Errorf("module: %v, want a refusal naming Tier 1", err)
	}
	if _, err := l.Load(ctx, filepath.Join(dir, "other.txt")); err == nil {
		t.Error("a text file loaded as an addon")
	}
	if _, err := l.Load(ctx, filepath.Join(dir, "gone")); err == nil {
		t.Error("a missing folder loaded")
	}
}

func TestExecWithArgs(t *testing.T) {
	for in, want := range map[string]string{
		"make deploy":       `make deploy "$@"`,
		`echo "$@" done`:    `echo "$@" done`,
		"echo $1":           "echo $1",
		"echo ${1:-x}":      "echo ${1:-x}",
		"printf '%s\\n' $*": "printf '%s\\n' $*",
		"echo cost is $0":   `echo cost is $0 "$@"`,
	} {
		if got := ExecWithArgs(in); got != want {
			t.Errorf("ExecWithArgs(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzParseManifest: no input makes the parser panic, and what it accepts
// has a non-empty id and named commands, and every gate has a known event.
func FuzzParseManifest(f *testing.F) {
	for _, s := range []string{
		"id = \"a\"\n",
		"id = \"safety\"\nversion = \"1.0.0\"\n[[command]]\nname = \"deploy\"\nsummary = \"s\"\nexec = \"./d.sh\"\n[[gate]]\nevent = \"tool:before\"\nmatch-tool = \"bash\"\nreason = \"r\"\n",
		"id = 5",
		"[[command]]\n[[command]]\nname=\"\"",
		"id=\"x\"\n[[gate]]\nevent=\"nope\"",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := Parse("fuzz.toml", data)
		if err != nil {
			var fa *addons.Fault
			if !errors.As(err, &fa) || fa.Kind != addons.LoadFault || fa.File != "fuzz.toml" {
				t.Fatalf("error %v is not a load fault naming the file", err)
			}
			return
		}
		if strings.TrimSpace(d.ID) == "" {
			t.Fatal("accepted a manifest without id")
		}
		for _, c := range d.Commands {
			if strings.TrimSpace(c.Name) == "" {
				t.Fatal("accepted a command without name")
			}
		}
		for _, g := range d.Gates {
			if _, err := addons.ParseEvent(g.Event); err != nil {
				t.Fatalf("accepted gate event %q", g.Event)
			}
		}
	})
}

// Declarative interceptors: set fixes arguments (and only those named),
// redact hides matches in text and inside JSON strings, keeping the JSON
// valid and its numbers exact.
func TestManifestInterceptors(t *testing.T) {
	d, err := Parse("m", []byte(`
id = "rw"
[[interceptor]]
match-tool = "bash"
set = { timeout = 30, env = { LANG = "C" } }
[[interceptor]]
redact = ['sk-[a-z0-9]{8}', 'hunter2']
replacement = "***"
`))
	if err != nil {
		t.Fatal(err)
	}
	h := addons.NewHost(addons.HostOptions{})
	h.LoadAddon(d.Addon())
	b := h.Bundle()
	if got := b.Chain.For("bash").Len(); got != 2 {
		t.Fatalf("bash has %d interceptors, want 2", got)
	}
	if got := b.Chain.For("read").Len(); got != 1 {
		t.Fatalf("read has %d interceptors, want 1 (redact applies to every tool)", got)
	}
	var ran json.RawMessage
	cr := b.Chain.Run(context.Background(), addons.EnterContext{Tool: "bash", Args: json.RawMessage(`{"command":"ls","timeout":5}`)},
		func(_ context.Context, args json.RawMessage) tool.Result {
			ran = args
			return tool.Result{Blocks: []tool.Block{
				{Kind: tool.KindText, Text: "token sk-abcd1234 and hunter2"},
				tool.JSONBlock(map[string]any{"secret": "hunter2", "n": json.Number("12345678901234567890")}),
			}}
		})
	var args map[string]any
	if err := json.Unmarshal(ran, &args); err != nil {
		t.Fatal(err)
	}
	if args["command"] != "ls" || args["timeout"] != float64(30) || args["env"].(map[string]any)["LANG"] != "C" {
		t.Errorf("tool ran with %s, want command kept, timeout 30 and env set", ran)
	}
	if got := cr.Result.Blocks[0].Text; got != "token *** and ***" {
		t.Errorf("text %q, want both secrets redacted", got)
	}
	if got := string(cr.Result.Blocks[1].JSON); got != `{"n":12345678901234567890,"secret":"***"}` {
		t.Errorf("JSON %s, want the secret redacted and the number exact", got)
	}
	// Input that is not an object is left for the tool to refuse.
	b.Chain.Run(context.Background(), addons.EnterContext{Tool: "bash", Args: json.RawMessage(`[1]`)},
		func(_ context.Context, args json.RawMessage) tool.Result { ran = args; return tool.Result{} })
	if string(ran) != "[1]" {
		t.Errorf("non-object input became %s", ran)
	}
}

func TestParseManifestProcess(t *testing.T) {
	d, err := Parse("m", []byte(`id = "p"

[process]
command = ["python3", "gate.py"]
env = ["HOME"]
timeout = "5s"
on_error = { "no-rm" = "allow" }
`))
	if err != nil {
		t.Fatal(err)
	}
	p := d.Process
	if p == nil || !slices.Equal(p.Command, []string{"python3", "gate.py"}) || p.Wait.Seconds() != 5 ||
		p.Line != 4 || p.EnvLine != 5 || p.OnError["no-rm"] != "allow" {
		t.Errorf("process %+v", p)
	}
	bad := []struct{ name, src, has string }{
		{"no command", "id = \"p\"\n[process]\nenv = []\n", "field process.command: must name the program"},
		{"blank command", "id = \"p\"\n[process]\ncommand = [\"\"]\n", "field process.command"},
		{"env pair", "id = \"p\"\n[process]\ncommand = [\"x\"]\nenv = [\"A=1\"]\n", `field process.env: "A=1" is not a variable name`},
		{"timeout", "id = \"p\"\n[process]\ncommand = [\"x\"]\ntimeout = \"soon\"\n", `field process.timeout: "soon" must be a duration`},
		{"timeout too long", "id = \"p\"\n[process]\ncommand = [\"x\"]\ntimeout = \"2h\"\n", "at most 10m0s"},
		{"on_error", "id = \"p\"\n[process]\ncommand = [\"x\"]\non_error = { g = \"maybe\" }\n", `field process.on_error: gate "g": "maybe"`},
		{"unknown key", "id = \"p\"\n[process]\ncommand = [\"x\"]\ncwd = \"/\"\n", "field process.cwd: unknown field"},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("/w/manifest.toml", []byte(tt.src))
			var f *addons.Fault
			if !errors.As(err, &f) || f.Line < 2 || !strings.Contains(f.Msg, tt.has) {
				t.Fatalf("err %v (line %d), want a load fault past line 1 containing %q", err, f.Line, tt.has)
			}
		})
	}
}

func TestManifestLoaderRefusesProcess(t *testing.T) {
	dir := t.TempDir()
	testtree.Write(t, dir, map[string]string{"manifest.toml": "id = \"p\"\n[[gate]]\nevent = \"tool:before\"\n[process]\ncommand = [\"x\"]\n"})
	_, err := Loader{}.Load(context.Background(), dir)
	var f *addons.Fault
	if !errors.As(err, &f) || f.Line != 5 || !strings.Contains(f.Msg, "Tier-1 loader") {
		t.Fatalf("err %v, want a load fault at the [process] command naming the Tier-1 loader", err)
	}
}
