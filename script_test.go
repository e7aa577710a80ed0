package induscode_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/indusagi/induscode/deck"
	"github.com/indusagi/induscode/internal/cli"
)

// TestMain lets the test binary act as indusr inside scripts, so the
// scripts drive the real CLI in-process.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"indusr": func() { os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
	})
}

// TestScripts runs testdata/script/*.txtar against the real CLI.
func TestScripts(t *testing.T) {
	t.Parallel()
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
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
