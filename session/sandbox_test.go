//go:build linux

package session

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/indusagi/induscode/internal/jail"
	"github.com/indusagi/induscode/internal/jail/jailtest"
	"github.com/indusagi/induscode/internal/testpeer"
)

func needLandlock(t *testing.T) {
	t.Helper()
	if r := jail.Probe(); r.ABI < 1 {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the sandbox tests need Landlock: %v", r.Err)
		}
		t.Skipf("no Landlock here: %v", r.Err)
	}
}

// sandboxed opens a session in dir with mode and approved hooks, runs one
// bash call and returns its result text.
func sandboxed(t testing.TB, dir, mode, command string) (string, bool) {
	t.Helper()
	w := &warnings{}
	s, err := Open(context.Background(), Options{Dir: dir, Sandbox: mode, TrustHooks: true, NoMCP: true, Warn: w.add})
	if err != nil {
		t.Fatal(err)
	}
	in, _ := json.Marshal(map[string]string{"command": command})
	res := s.Run(context.Background(), "bash", in)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return res.PlainText() + "\n" + w.String(), res.IsError
}

// A hook with no write grant creates nothing anywhere (not outside, not
// in the workspace), whatever the mode, off included: an addon's grants
// are its contract, the mode is for the model's commands; with a grant of
// sub it writes sub and nothing else (which shows the hook ran).
func TestHookGrants(t *testing.T) {
	needLandlock(t)
	t.Parallel()
	outside := t.TempDir()
	hook := fmt.Sprintf(`touch %s/hook-outside; touch sub/hook-inside; touch hook-top; exit 0`, outside)
	manifest := func(grant string) string {
		return "id = \"probe\"\n[[hook]]\nevent = \"PreToolUse\"\nmatcher = \"bash\"\ncommand = '" + hook + "'\n" + grant
	}
	for _, tc := range []struct {
		name, mode, grant string
		want              []string // files made
	}{
		{"no grant", "workspace-write", "", nil},
		{"no grant, read-only", "read-only", "", nil},
		{"no grant, sandbox off", "off", "", nil},
		{"grant of sub", "workspace-write", "[sandbox]\nwrite = [\"sub\"]\n", []string{"sub/hook-inside"}},
		{"grant of sub, sandbox off", "off", "[sandbox]\nwrite = [\"sub\"]\n", []string{"sub/hook-inside"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, _ := hookWorkspace(t, map[string]string{".indus/addons/probe/manifest.toml": manifest(tc.grant), "sub/keep": ""})
			os.Remove(filepath.Join(outside, "hook-outside"))
			if out, isErr := sandboxed(t, dir, tc.mode, "echo ran"); isErr || !strings.Contains(out, "ran") {
				t.Fatalf("the call itself failed: %s", out)
			}
			made := map[string]bool{}
			for _, p := range []string{"sub/hook-inside", "hook-top"} {
				if _, err := os.Stat(filepath.Join(dir, p)); err == nil {
					made[p] = true
				}
			}
			if _, err := os.Stat(filepath.Join(outside, "hook-outside")); err == nil {
				made["outside"] = true
			}
			for _, w := range tc.want {
				if !made[w] {
					t.Errorf("%s was not made", w)
				}
				delete(made, w)
			}
			for p := range made {
				t.Errorf("the hook made %s", p)
			}
		})
	}
}

// The escape suite through a hook: the hook runs the suite's script and
// exits 2, so its output comes back as the reason the call was blocked.
func TestEscapeSuiteThroughHook(t *testing.T) {
	needLandlock(t)
	t.Parallel()
	s := jailtest.New(t)
	manifest := "id = \"escape\"\n[[hook]]\nevent = \"PreToolUse\"\nmatcher = \"bash\"\ncommand = 'bash sub/escape.sh >&2; exit 2'\n"
	p := filepath.Join(s.Workspace, ".indus/addons/escape/manifest.toml")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	attempts, escaped := s.Run(t, func(t testing.TB, command string) string {
		if err := os.WriteFile(filepath.Join(s.Workspace, "sub/escape.sh"), []byte(command), 0o644); err != nil {
			t.Fatal(err)
		}
		out, _ := sandboxed(t, s.Workspace, "workspace-write", "true")
		return out
	}, false, false)
	if len(escaped) != 0 || attempts < 20 {
		t.Fatalf("%d attempts, escapes: %v", attempts, escaped)
	}
}

// A [process] addon without a write grant cannot create a file: its
// process tries at start, before it answers initialize.
func TestProcessAddonGrants(t *testing.T) {
	needLandlock(t)
	t.Parallel()
	python := "/usr/bin/python3"
	if _, err := os.Stat(python); err != nil {
		testpeer.Missing(t, "/usr/bin/python3", "install the Debian package python3 (scripts/test does)")
	}
	outside := t.TempDir()
	// The process runs in its addon's folder, three below the workspace.
	script := fmt.Sprintf(`import json, sys
for p in [%q, "../../../sub/proc-inside", "../../../proc-top"]:
    try:
        open(p, "w").write("x")
    except OSError as e:
        print("refused", p, e, file=sys.stderr)
for line in sys.stdin:
    m = json.loads(line)
    if "id" not in m:
        continue
    r = {"protocolVersion": "1"} if m["method"] == "initialize" else {}
    print(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": r}), flush=True)
`, filepath.Join(outside, "proc-outside"))
	for _, tc := range []struct {
		name, grant string
		inside      bool
	}{{"no grant", "", false}, {"grant of sub", "[sandbox]\nwrite = [\"sub\"]\n", true}} {
		t.Run(tc.name, func(t *testing.T) {
			manifest := "id = \"proc\"\n[process]\ncommand = [\"" + python + "\", \"addon.py\"]\n" + tc.grant
			dir, _ := hookWorkspace(t, map[string]string{".indus/addons/proc/manifest.toml": manifest, ".indus/addons/proc/addon.py": script, "sub/keep": ""})
			sandboxed(t, dir, "workspace-write", "true")
			if _, err := os.Stat(filepath.Join(outside, "proc-outside")); err == nil {
				t.Error("the addon process wrote outside the workspace")
			}
			if _, err := os.Stat(filepath.Join(dir, "proc-top")); err == nil {
				t.Error("the addon process made a top-level file")
			}
			_, err := os.Stat(filepath.Join(dir, "sub/proc-inside"))
			if (err == nil) != tc.inside {
				t.Errorf("sub/proc-inside made: %v, want %v", err == nil, tc.inside)
			}
			log, _ := os.ReadFile(filepath.Join(dir, ".indusvx/addon-logs/proc.log"))
			if !strings.Contains(string(log), "refused") {
				t.Errorf("the addon's log does not show it ran and was refused:\n%s", log)
			}
		})
	}
}

// A stdio MCP server whose config row asks for a sandbox runs confined:
// the real server-filesystem, serving both the workspace and a folder
// outside it, can write only the first.
func TestSandboxedMCPServer(t *testing.T) {
	needLandlock(t)
	t.Parallel()
	ws, outside := t.TempDir(), t.TempDir()
	if err := os.Mkdir(filepath.Join(ws, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	entry := testpeer.NPMFile(t, "@modelcontextprotocol/server-filesystem/dist/index.js")
	row := map[string]any{"command": testpeer.Node(t), "args": []string{entry, ws, outside}, "sandbox": "workspace-write", "startupTimeout": "60s"}
	b, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"fs": row}})
	cfg := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(cfg, b, 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Open(context.Background(), Options{Dir: ws, MCP: []string{cfg}, Warn: func(m string) { t.Log(m) }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	write := func(p string) (string, bool) {
		in, _ := json.Marshal(map[string]string{"path": p, "content": "x"})
		r := s.Run(context.Background(), "fs__write_file", in)
		return r.PlainText(), r.IsError
	}
	if out, isErr := write(filepath.Join(outside, "mcp-outside")); !isErr {
		t.Errorf("writing outside: %q, want an error", out)
	}
	if _, err := os.Stat(filepath.Join(outside, "mcp-outside")); err == nil {
		t.Error("the sandboxed MCP server wrote outside the workspace")
	}
	if out, isErr := write(filepath.Join(ws, "sub", "mcp-inside")); isErr {
		t.Errorf("writing inside: %q", out)
	}
	if _, err := os.Stat(filepath.Join(ws, "sub", "mcp-inside")); err != nil {
		t.Errorf("the sandboxed MCP server could not write inside the workspace: %v", err)
	}
}

// A grant is part of a hook's approval: once the manifest widens it
// (here from nothing to the folder sub), the hook does not run until the
// user approves it again, and the change is named. Without that, a
// repository could widen an approved hook's reach behind the user's back.
func TestWidenedGrantNeedsApproval(t *testing.T) {
	needLandlock(t)
	t.Parallel()
	manifest := "id = \"probe\"\n[[hook]]\nevent = \"PreToolUse\"\nmatcher = \"bash\"\ncommand = 'touch sub/hook-made; exit 0'\n"
	proc := "id = \"worker\"\n[process]\ncommand = [\"true\"]\n[sandbox]\nread = [\"~/.cache\"]\n"
	file := ".indus/addons/probe/manifest.toml"
	dir, store := hookWorkspace(t, map[string]string{file: manifest, ".indus/addons/worker/manifest.toml": proc, "sub/keep": ""})
	opts := Options{Dir: dir, Approvals: store, Sandbox: "workspace-write"}
	a, err := Approve(opts, AddonHooks)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range a.Group(AddonHooks).Units {
		want := map[string]string{"hook": "sandbox: write nothing; no network", "process": "sandbox: write nothing; read ~/.cache; no network"}[u.Kind]
		if u.Grant == nil || !slices.Contains(u.Shows, want+" (enforced with Landlock in every sandbox mode, off included)") {
			t.Fatalf("the %s's unit does not show its grant (%q): %q", u.Kind, want, u.Shows)
		}
	}
	widened := manifest + "[sandbox]\nwrite = [\"sub\"]\nnetwork = true\n"
	if err := os.WriteFile(filepath.Join(dir, file), []byte(widened), 0o644); err != nil {
		t.Fatal(err)
	}
	a, err = ReadApprovals(opts, AddonHooks)
	if err != nil {
		t.Fatal(err)
	}
	g := a.Group(AddonHooks)
	if g.Approved || !strings.Contains(g.Why(), "changed: sandbox grant "+file) {
		t.Errorf("after widening the grant: approved %v, why %q; want a change of the grant", g.Approved, g.Why())
	}
	for _, u := range g.Units {
		if u.Kind == "hook" && (u.Approved || !slices.Contains(u.Shows, "sandbox: write sub; network (enforced with Landlock in every sandbox mode, off included)")) {
			t.Errorf("%s %s: approved %v, shows %q; want it pending, showing the new grant", u.Kind, u.Name, u.Approved, u.Shows)
		}
	}
	if _, _, warns := runBash(t, opts, "echo ran"); !strings.Contains(warns, "changed since your approval") {
		t.Errorf("warnings %q; want the hook named as changed", warns)
	}
	if _, err := os.Stat(filepath.Join(dir, "sub/hook-made")); err == nil {
		t.Fatal("the hook ran with a grant the user never approved")
	}
	if _, err := Approve(opts, AddonHooks); err != nil {
		t.Fatal(err)
	}
	runBash(t, opts, "echo ran")
	if _, err := os.Stat(filepath.Join(dir, "sub/hook-made")); err != nil {
		t.Fatalf("approved again, the hook did not write the folder it was granted: %v", err)
	}
}
