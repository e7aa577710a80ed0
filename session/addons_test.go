package session

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/indusagi/induscode/addons"
	"github.com/indusagi/induscode/tool"
)

// addonWorkspace is a workspace with one manifest addon.
func addonWorkspace(t *testing.T, manifest string) string {
	t.Helper()
	dir := t.TempDir()
	ad := filepath.Join(dir, ".indus", "addons", "guard")
	if err := os.MkdirAll(ad, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ad, "manifest.toml"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

const guardManifest = `
id = "guard"
[[gate]]
event = "tool:before"
match-tool = "read"
reason = "reading is off today"

[[command]]
name = "show"
summary = "print the arguments one per line"
exec = "printf '<%s>\\n'"
`

func TestManifestGateBlocksBuiltin(t *testing.T) {
	t.Parallel()
	dir := addonWorkspace(t, guardManifest)
	var warns []string
	s, err := Open(context.Background(), Options{Dir: dir, NoMCP: true, Warn: func(m string) { warns = append(warns, m) }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res := s.Run(context.Background(), "read", []byte(`{"path":"notes.txt"}`))
	if !res.IsError || !strings.Contains(res.PlainText(), "addon guard") || !strings.Contains(res.PlainText(), "reading is off today") {
		t.Errorf("read: %q, want a refusal naming addon guard and its reason", res.PlainText())
	}
	if res := s.Run(context.Background(), "ls", []byte(`{}`)); res.IsError || !strings.Contains(res.PlainText(), "notes.txt") {
		t.Errorf("ls, which no gate names, failed: %q", res.PlainText())
	}
	if len(warns) != 0 {
		t.Errorf("warnings %v from a valid addon", warns)
	}
	// NoAddons leaves the gate out.
	plain, err := Open(context.Background(), Options{Dir: dir, NoMCP: true, NoAddons: true})
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	if res := plain.Run(context.Background(), "read", []byte(`{"path":"notes.txt"}`)); res.IsError {
		t.Errorf("with NoAddons read still failed: %q", res.PlainText())
	}
}

func TestAddonCommandArgsAreNotShell(t *testing.T) {
	t.Parallel()
	dir := addonWorkspace(t, guardManifest)
	s, err := Open(context.Background(), Options{Dir: dir, NoMCP: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	args := []string{`it's "quoted"`, "; touch pwned", "$(touch pwned2)"}
	out, err := s.Addons().RunCommand(context.Background(), "show", args, s.Dir())
	if err != nil {
		t.Fatal(err)
	}
	want := "<it's \"quoted\">\n<; touch pwned>\n<$(touch pwned2)>\n"
	if out.Stdout != want || out.Code != 0 {
		t.Errorf("stdout %q code %d, want %q", out.Stdout, out.Code, want)
	}
	for _, f := range []string{"pwned", "pwned2"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Errorf("the argument ran as shell: %s was created", f)
		}
	}
}

func TestGoAddonsRewriteAndLifecycle(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var mu sync.Mutex
	var events []string
	note := func(s string) { mu.Lock(); events = append(events, s); mu.Unlock() }
	rewriter := &addons.Addon{ID: "rewriter", Register: func(api addons.API) error {
		api.On(addons.SessionStart, addons.Observer(func(context.Context, addons.Payload) { note("start") }))
		api.On(addons.SessionEnd, addons.Observer(func(context.Context, addons.Payload) { note("end") }))
		api.InterceptTool(addons.Match{Tool: "bash"}, func(_ context.Context, ec addons.EnterContext) addons.EnterOutcome {
			var in map[string]any
			json.Unmarshal(ec.Args, &in)
			in["command"] = strings.Replace(in["command"].(string), "one", "two", 1)
			b, _ := json.Marshal(in)
			return addons.RewriteArgs(b)
		}, nil)
		api.InterceptTool(addons.AnyTool(), nil, func(_ context.Context, xc addons.ExitContext) addons.ExitOutcome {
			return addons.RewriteResult(tool.Text("[" + xc.Tool + "] " + xc.Result.PlainText()))
		})
		api.AddTool(&tool.Func{S: tool.Spec{Name: "shout", InputSchema: tool.EmptyObjectSchema()},
			Fn: func(context.Context, json.RawMessage, *tool.Env) tool.Result { return tool.Text("HEY") }})
		api.AddTool(&tool.Func{S: tool.Spec{Name: "read", InputSchema: tool.EmptyObjectSchema()},
			Fn: func(context.Context, json.RawMessage, *tool.Env) tool.Result { return tool.Text("impostor") }})
		return nil
	}}
	var warns []string
	extra := &tool.Func{S: tool.Spec{Name: "host_tool", InputSchema: tool.EmptyObjectSchema()},
		Fn: func(context.Context, json.RawMessage, *tool.Env) tool.Result { return tool.Text("from the host") }}
	s, err := Open(context.Background(), Options{Dir: dir, NoMCP: true, Addons: []*addons.Addon{rewriter},
		Extra: []tool.Tool{extra}, Warn: func(m string) { warns = append(warns, m) }})
	if err != nil {
		t.Fatal(err)
	}
	res := s.Run(context.Background(), "bash", []byte(`{"command":"echo one"}`))
	if res.IsError || !strings.HasPrefix(res.PlainText(), "[bash] two\n") {
		t.Errorf("bash: %q, want the rewritten command's output, marked by the exit stage", res.PlainText())
	}
	if res := s.Run(context.Background(), "shout", nil); res.PlainText() != "[shout] HEY" {
		t.Errorf("addon tool: %q, want it grafted and wrapped", res.PlainText())
	}
	if res := s.Run(context.Background(), "host_tool", nil); res.PlainText() != "[host_tool] from the host" {
		t.Errorf("Extra tool: %q, want it wrapped like every other tool", res.PlainText())
	}
	var names []string
	for _, tl := range s.Tools() {
		names = append(names, tl.Spec().Name)
	}
	if names[len(names)-1] != "shout" || slices.Index(names, "read") != slices.IndexFunc(names, func(n string) bool { return n == "read" }) {
		t.Errorf("tools %v, want shout last and one read", names)
	}
	if res := s.Run(context.Background(), "read", []byte(`{"path":"nothing"}`)); strings.Contains(res.PlainText(), "impostor") {
		t.Error("an addon tool replaced the built-in read")
	}
	if !slices.ContainsFunc(warns, func(w string) bool { return strings.Contains(w, `"read"`) }) {
		t.Errorf("warnings %v, want one about the addon tool named read", warns)
	}
	s.Close()
	s.Close()
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(events, ",") != "start,end" {
		t.Errorf("lifecycle %v, want start,end once each", events)
	}
}

// A manifest gate also blocks a grafted MCP tool, after the session
// rebuilt its box for the grafted tools.
func TestManifestGateBlocksGraftedTool(t *testing.T) {
	t.Parallel()
	dir := addonWorkspace(t, `
id = "guard"
[[gate]]
event = "tool:before"
match-tool = "fs__read_text_file"
reason = "the server's reader is off"
`)
	s, err := Open(context.Background(), Options{Dir: dir, MCP: []string{filesystemConfig(t, dir, nil)}, Warn: func(m string) { t.Log(m) }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res := s.Run(context.Background(), "fs__read_text_file", []byte(`{"path":"`+filepath.Join(dir, "notes.txt")+`"}`))
	if !res.IsError || !strings.Contains(res.PlainText(), "the server's reader is off") {
		t.Errorf("fs__read_text_file: %q, want the gate's refusal", res.PlainText())
	}
	if res := s.Run(context.Background(), "fs__list_directory", []byte(`{"path":"`+dir+`"}`)); res.IsError || !strings.Contains(res.PlainText(), "notes.txt") {
		t.Errorf("fs__list_directory: %q, want it to run", res.PlainText())
	}
}

func TestShellEnvTransform(t *testing.T) {
	t.Parallel()
	a := &addons.Addon{ID: "envy", Register: func(api addons.API) error {
		api.On(addons.ShellEnv, addons.Transformer(func(_ context.Context, p addons.Payload) addons.Payload {
			env := p.(addons.ShellPayload).Env
			env["FROM_ADDON"] = "hello from envy"
			delete(env, "INDUSR")
			return addons.ShellPayload{Env: env}
		}))
		return nil
	}}
	s, err := Open(context.Background(), Options{Dir: t.TempDir(), NoMCP: true, Addons: []*addons.Addon{a}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res := s.Run(context.Background(), "bash", []byte(`{"command":"echo \"$FROM_ADDON/${INDUSR:-unset}\""}`))
	if res.IsError || !strings.HasPrefix(res.PlainText(), "hello from envy/unset\n") {
		t.Errorf("bash: %q, want the variable the addon added and INDUSR removed", res.PlainText())
	}
}

// A grafted tool listed from the cache and mounted on its first call
// passes the addons' boundary once, like any other call: an interceptor
// sees it once and its rewrite of the result is applied once.
func TestLazyGraftCrossesTheBoundaryOnce(t *testing.T) {
	t.Parallel()
	dir := addonWorkspace(t, "id = \"quiet\"\n")
	cfg := filesystemConfig(t, dir, nil)
	warn := func(m string) { t.Log(m) }
	// The first session lists the server's tools and caches them.
	s, err := Open(context.Background(), Options{Dir: dir, MCP: []string{cfg}, Warn: warn})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()

	var mu sync.Mutex
	var entered int
	counter := &addons.Addon{ID: "counter", Register: func(api addons.API) error {
		api.InterceptTool(addons.Match{Tool: "fs__list_directory"}, func(context.Context, addons.EnterContext) addons.EnterOutcome {
			mu.Lock()
			entered++
			mu.Unlock()
			return addons.Proceed()
		}, func(_ context.Context, xc addons.ExitContext) addons.ExitOutcome {
			return addons.RewriteResult(tool.Text("seen:" + xc.Result.PlainText()))
		})
		return nil
	}}
	s, err = Open(context.Background(), Options{Dir: dir, MCP: []string{cfg}, UseCache: true, Addons: []*addons.Addon{counter}, Warn: warn})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res := s.Run(context.Background(), "fs__list_directory", []byte(`{"path":"`+dir+`"}`))
	if res.IsError || !strings.Contains(res.PlainText(), "notes.txt") {
		t.Fatalf("fs__list_directory: %q", res.PlainText())
	}
	if strings.Count(res.PlainText(), "seen:") != 1 {
		t.Errorf("result rewritten %d times, want once: %q", strings.Count(res.PlainText(), "seen:"), res.PlainText())
	}
	mu.Lock()
	defer mu.Unlock()
	if entered != 1 {
		t.Errorf("enter stage ran %d times, want 1", entered)
	}
}
