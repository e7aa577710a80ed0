//go:build linux

package session

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/indusagi/induscode/internal/testpeer"
)

// What the approval text shows of a unit's confinement is what the unit
// can do, in every sandbox mode: each unit (an addon's hook and [process]
// with no grant, a hook of Claude Code's settings) tries to write inside
// the workspace and outside it, and what it managed is compared with what
// hooks trust showed for it.
func TestApprovalTextMatchesConfinement(t *testing.T) {
	needLandlock(t)
	t.Parallel()
	python := "/usr/bin/python3"
	if _, err := os.Stat(python); err != nil {
		testpeer.Missing(t, python, "install the Debian package python3 (scripts/test does)")
	}
	for _, mode := range []string{"off", "read-only", "workspace-write"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			outside := t.TempDir()
			try := func(name string) string {
				return fmt.Sprintf(`touch "$CLAUDE_PROJECT_DIR/sub/%s-in"; touch %q; exit 0`, name, filepath.Join(outside, name+"-out"))
			}
			proc := fmt.Sprintf(`import json, sys
for p in ["../../../sub/process-in", %q]:
    try:
        open(p, "w").write("x")
    except OSError:
        pass
for line in sys.stdin:
    m = json.loads(line)
    if "id" in m:
        r = {"protocolVersion": "1"} if m["method"] == "initialize" else {}
        print(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": r}), flush=True)
`, filepath.Join(outside, "process-out"))
			dir, store := hookWorkspace(t, map[string]string{
				".indus/addons/probe/manifest.toml":  "id = \"probe\"\n[[hook]]\nevent = \"PostToolUse\"\nmatcher = \"bash\"\ncommand = '" + try("addon-hook") + "'\n",
				".indus/addons/worker/manifest.toml": "id = \"worker\"\n[process]\ncommand = [\"" + python + "\", \"addon.py\"]\n",
				".indus/addons/worker/addon.py":      proc,
				".claude/settings.json":              `{"hooks":{"PostToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":` + strconvQuote(try("claude-hook")) + `}]}]}}`,
				"sub/keep":                           "",
			})
			opts := Options{Dir: dir, Approvals: store, ClaudeHooks: true, NoMCP: true, Sandbox: mode}
			a, err := Approve(opts)
			if err != nil {
				t.Fatal(err)
			}
			shown := map[string]string{}
			for _, g := range a.Groups {
				for _, u := range g.Units {
					for _, s := range u.Shows {
						if strings.HasPrefix(s, "sandbox: ") {
							shown[map[string]string{"claude": "claude-hook", "hook": "addon-hook", "process": "process"}[map[bool]string{true: "claude", false: u.Kind}[g.Name == ClaudeHooks]]] = s
						}
					}
				}
			}
			w := &warnings{}
			opts.Warn = w.add
			s, err := Open(context.Background(), opts)
			if err != nil {
				t.Fatal(err)
			}
			if r := s.Run(context.Background(), "bash", []byte(`{"command":"true"}`)); r.IsError {
				t.Fatalf("bash: %s", r.PlainText())
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			for unit, text := range shown {
				// What the text promises for this mode.
				var wantIn, wantOut bool
				switch {
				case strings.Contains(text, "write nothing") && strings.Contains(text, "off included"):
				case strings.Contains(text, "unconfined under --sandbox off") && mode == "off":
					wantIn, wantOut = true, true
				case strings.Contains(text, "writes only inside the workspace") && mode != "off":
					wantIn = true
				default:
					t.Fatalf("%s: the text %q promises nothing this test knows", unit, text)
				}
				_, errIn := os.Stat(filepath.Join(dir, "sub", unit+"-in"))
				_, errOut := os.Stat(filepath.Join(outside, unit+"-out"))
				if (errIn == nil) != wantIn || (errOut == nil) != wantOut {
					t.Errorf("%s under %s showed %q but wrote inside %v, outside %v (want %v, %v); warnings: %s",
						unit, mode, text, errIn == nil, errOut == nil, wantIn, wantOut, w)
				}
			}
			if len(shown) != 3 {
				t.Errorf("units shown: %v", shown)
			}
		})
	}
}
