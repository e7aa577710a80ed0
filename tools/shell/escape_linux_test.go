package shell

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/indusagi/induscode/internal/testpeer"
)

// A process that leaves its group with setsid is out of reach of the group
// signals; it must still die when the session ends, for bash and for
// background processes alike.
func TestSessionEndKillsProcessesThatLeftTheGroup(t *testing.T) {
	testpeer.Command(t, "setsid", "install util-linux")
	t.Parallel()
	cases := []struct {
		name string
		tool string
		in   func(pidFile string) map[string]any
	}{
		{"process", "process", func(f string) map[string]any {
			return map[string]any{"action": "start", "command": "setsid sh -c 'echo $$ > " + f + "; exec sleep 300' & exec sleep 300"}
		}},
		{"bash", "bash", func(f string) map[string]any {
			// The escapee holds no pipe, so the call returns while it runs.
			return map[string]any{"command": "setsid sh -c 'echo $$ > " + f + "; exec sleep 300' > /dev/null 2>&1 < /dev/null & sleep 0.2; cat " + f}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			env := session(t)
			pidFile := filepath.Join(env.Dir, "escapee.pid")
			tl := ProcessTool()
			if c.tool == "bash" {
				tl = BashTool()
			}
			if r := call(t, tl, env, c.in(pidFile)); r.IsError {
				t.Fatal(text(r))
			}
			waitFile(t, pidFile)
			b, _ := os.ReadFile(pidFile)
			pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
			if !alive(pid) {
				t.Fatalf("the escapee %d is not running before the session ends", pid)
			}
			env.Close()
			requireDead(t, []int{pid})
		})
	}
}
