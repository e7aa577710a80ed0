package cli_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/indusagi/induscode/internal/testpeer"
)

// TestTier1Scripts runs testdata/script-rpc/*.txtar: the example addons of
// examples/addons (the Go one built here, the Python one run by python3)
// and misbehaving ones, through the real CLI. $GO_GATE is the built Go
// example and $EXAMPLES the examples folder.
func TestTier1Scripts(t *testing.T) {
	t.Parallel()
	testpeer.Command(t, "python3", "install python3")
	bin := filepath.Join(t.TempDir(), "go-gate")
	if out, err := exec.Command("go", "build", "-o", bin, "../../../examples/addons/go-gate").CombinedOutput(); err != nil {
		t.Fatalf("building the Go example addon: %v\n%s", err, out)
	}
	examples, err := filepath.Abs("../../../examples/addons")
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script-rpc",
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			env.Setenv("XDG_CONFIG_HOME", env.WorkDir+"/.xdg")
			env.Setenv("GO_GATE", bin)
			env.Setenv("EXAMPLES", examples)
			return os.MkdirAll(filepath.Join(env.WorkDir, ".indus", "addons"), 0o755)
		},
	})
}
