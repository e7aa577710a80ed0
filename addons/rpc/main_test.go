package rpc

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"go.uber.org/goleak"
)

// standin is the path of the misbehaving addon built from
// testdata/standin, for every test of the package.
var standin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "rpc-standin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	standin = filepath.Join(dir, "standin")
	if out, err := exec.Command("go", "build", "-o", standin, "./testdata/standin").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building the stand-in addon: %v\n%s", err, out)
		os.Exit(2)
	}
	code := 0
	func() {
		defer os.RemoveAll(dir)
		// goleak runs after the tests, before the folder goes.
		code = m.Run()
		if code == 0 {
			if err := goleak.Find(); err != nil {
				fmt.Fprintln(os.Stderr, "goroutines left behind:", err)
				code = 1
			}
		}
	}()
	os.Exit(code)
}
