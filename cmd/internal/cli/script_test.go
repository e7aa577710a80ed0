package cli_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"go.uber.org/goleak"

	"github.com/indusagi/induscode/cmd/internal/agent"
	"github.com/indusagi/induscode/cmd/internal/cli"
	"github.com/indusagi/induscode/deck"
	"github.com/indusagi/induscode/internal/jail"
	"github.com/indusagi/induscode/internal/jail/jailtest"
	"github.com/indusagi/induscode/internal/testpeer"
)

// TestMain lets the test binary act as indusr and indusr-agent (which
// indusr execs for -p) inside scripts and tests, so they drive the real
// CLI, and checks that no test of the package leaves a goroutine behind.
func TestMain(m *testing.M) {
	jail.Main()     // the test binary confines the children of sandboxed sessions
	jailtest.Main() // and is the escape suite's probe program
	testpeer.SystemProgramsFirst()
	testscript.Main(leakChecked{m}, map[string]func(){
		"indusr":       func() { os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
		"indusr-agent": func() { os.Exit(agent.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
	})
}

// TestScripts runs testdata/script/*.txtar against the real CLI.
func TestScripts(t *testing.T) {
	t.Parallel()
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		// Approvals of workspace MCP configs go to a config folder of the
		// script's own, never the user's.
		Setup: func(env *testscript.Env) error {
			env.Setenv("XDG_CONFIG_HOME", env.WorkDir+"/.xdg")
			// Language servers only where a script asks for them
			// (env INDUSR_NO_LSP=): they are slow to start.
			env.Setenv("INDUSR_NO_LSP", "1")
			// Scripts copy the shipped examples from here, so they test
			// the files users copy.
			examples, err := filepath.Abs("../../../examples")
			env.Setenv("EXAMPLES", examples)
			return err
		},
		// [tool:NAME] holds when the catalog has a tool NAME, so a script
		// can cover a tool that joins the catalog in another branch.
		Condition: func(cond string) (bool, error) {
			if name, ok := strings.CutPrefix(cond, "tool:"); ok {
				return deck.Has(name), nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
	})
}

// leakChecked runs the tests, then fails the run if goroutines are left.
type leakChecked struct{ m *testing.M }

func (l leakChecked) Run() int {
	code := l.m.Run()
	if code == 0 {
		// The Gemini SDK's auth module starts opencensus's stats worker
		// in an init function: the program's, not a test's, goroutine.
		if err := goleak.Find(goleak.IgnoreTopFunction("go.opencensus.io/stats/view.(*worker).start")); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			return 1
		}
	}
	return code
}
