//go:build linux

package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/indusagi/induscode/internal/jail"
	"github.com/indusagi/induscode/internal/jail/jailtest"
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

// callBash runs indusr [flags] call bash {"command": command} in dir and
// returns its exit code and what it printed.
func callBash(t testing.TB, dir, command string, flags ...string) (int, string) {
	t.Helper()
	in, _ := json.Marshal(map[string]string{"command": command})
	args := append(append([]string{"-C", dir, "--no-mcp"}, flags...), "call", "bash", string(in))
	var out bytes.Buffer
	code := run(context.Background(), Program{}, args, strings.NewReader(""), &out, &out)
	return code, out.String()
}

// The acceptance check: under workspace-write a write outside the
// workspace fails with a sandbox message and leaves nothing; one inside
// works; with the sandbox off the same write goes through (so the check
// can fail).
func TestSandboxRefusesWritesOutside(t *testing.T) {
	needLandlock(t)
	t.Parallel()
	ws := t.TempDir()
	if err := os.Mkdir(filepath.Join(ws, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "x-outside")
	code, out := callBash(t, ws, "touch "+outside, "--sandbox", "workspace-write")
	if code != ExitToolError || !strings.Contains(out, "Permission denied") || !strings.Contains(out, "[sandbox workspace-write:") {
		t.Errorf("touch outside: exit %d, output %q; want exit 1 with the sandbox's note", code, out)
	}
	if _, err := os.Stat(outside); err == nil {
		t.Fatal("the sandbox let a command write outside the workspace")
	}
	if code, out := callBash(t, ws, "touch src/x-inside && echo made > src/notes.txt", "--sandbox", "workspace-write"); code != ExitOK {
		t.Errorf("touch inside: exit %d, output %q", code, out)
	}
	if _, err := os.Stat(filepath.Join(ws, "src/x-inside")); err != nil {
		t.Errorf("the write inside the workspace did not happen: %v", err)
	}
	if code, out := callBash(t, ws, "touch "+outside, "--sandbox", "off"); code != ExitOK {
		t.Errorf("with the sandbox off: exit %d, output %q", code, out)
	}
	if _, err := os.Stat(outside); err != nil {
		t.Errorf("with the sandbox off the write did not happen: %v", err)
	}
}

// The escape suite through indusr call, in both modes.
func TestEscapeSuiteThroughCall(t *testing.T) {
	needLandlock(t)
	t.Parallel()
	for _, mode := range []string{"read-only", "workspace-write"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			s := jailtest.New(t)
			attempts, escaped := s.Run(t, func(t testing.TB, command string) string {
				_, out := callBash(t, s.Workspace, command, "--sandbox", mode)
				return out
			}, true, false)
			if len(escaped) != 0 || attempts < 20 {
				t.Fatalf("%d attempts, escapes: %v", attempts, escaped)
			}
		})
	}
}

func TestSandboxModeErrors(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	code := run(context.Background(), Program{}, []string{"-C", t.TempDir(), "--sandbox", "strict", "call", "ls"}, strings.NewReader(""), &out, &out)
	if code != ExitUsage || !strings.Contains(out.String(), "read-only, workspace-write and off") {
		t.Errorf("an unknown mode: exit %d, %q", code, out.String())
	}
}

func TestSandboxCheck(t *testing.T) {
	needLandlock(t)
	t.Parallel()
	var out bytes.Buffer
	code := run(context.Background(), Program{}, []string{"sandbox", "check"}, strings.NewReader(""), &out, &out)
	for _, want := range []string{"Landlock ABI ", "read-only:", "workspace-write:", ".git/hooks/", "off:", "mount tier for workspace-write: "} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("sandbox check lacks %q:\n%s", want, out.String())
		}
	}
	if code != ExitOK {
		t.Errorf("exit %d", code)
	}
}
