//go:build linux

package cli_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/indusagi/induscode/internal/fakemodel"
	"github.com/indusagi/induscode/internal/jail"
	"github.com/indusagi/induscode/internal/jail/jailtest"
)

// The escape suite through -p: a scripted model runs it with bash, in each
// sandboxed mode, and what bash printed comes back in the next request.
// Every family (files, git, sockets, terminals, ...) counts no escape.
func TestEscapeSuiteThroughPrint(t *testing.T) {
	if r := jail.Probe(); r.ABI < 1 {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the sandbox tests need Landlock: %v", r.Err)
		}
		t.Skipf("no Landlock here: %v", r.Err)
	}
	t.Parallel()
	for _, mode := range []string{"read-only", "workspace-write"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			s := jailtest.New(t)
			attempts, escaped := s.Run(t, func(t testing.TB, command string) string {
				in, _ := json.Marshal(map[string]any{"command": command, "timeout_ms": 300000})
				srv := fakemodel.Start(t, fakemodel.Call("bash", string(in)), fakemodel.Say("done"))
				cmd := indusrP(t.(*testing.T), s.Workspace, srv, "-p", "run it", "--no-mcp", "--sandbox", mode, "--allowed-tools", "Bash")
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("%v\n%s", err, out)
				}
				reqs := srv.Requests()
				if len(reqs) < 2 {
					t.Fatalf("the model was asked %d times", len(reqs))
				}
				return toolResult(reqs[1].Body)
			}, true, false)
			if len(escaped) != 0 || attempts < 40 {
				t.Fatalf("%d attempts, escapes: %v", attempts, escaped)
			}
		})
	}
}

// toolResult finds, in a request's JSON, the text that holds the escape
// script's end marker.
func toolResult(body []byte) string {
	var v any
	if json.Unmarshal(body, &v) != nil {
		return string(body)
	}
	var found string
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			if strings.Contains(x, "@@attempt end") && len(x) > len(found) {
				found = x
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	return found
}
