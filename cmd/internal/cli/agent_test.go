package cli_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/indusagi/induscode/cmd/internal/cli"
)

// indusr -p without indusr-agent beside it or on PATH fails with exit 1,
// naming the program and the command that installs it, and prints
// nothing on stdout.
func TestPrintWithoutTheAgentSaysHowToInstallIt(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// A link named indusr: this test binary acts as indusr (TestMain) from
	// its own folder, which holds no indusr-agent, with a PATH that holds
	// none either.
	dir := t.TempDir()
	link := filepath.Join(dir, "indusr")
	if err := os.Symlink(exe, link); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(link, "-C", dir, "-p", "hello")
	cmd.Env = append(os.Environ(), "PATH="+dir, "XDG_CONFIG_HOME="+filepath.Join(dir, ".xdg"))
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != cli.ExitToolError {
		t.Fatalf("exit: %v, want %d\n%s", err, cli.ExitToolError, stderr.String())
	}
	for _, want := range []string{cli.AgentName, "go install ./cmd/..."} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr does not name %q:\n%s", want, stderr.String())
		}
	}
	if stdout.Len() != 0 {
		t.Errorf("stdout: %q", stdout.String())
	}
}

// indusr -p execs indusr-agent: the agent's output and exit status are
// indusr's, and the prompt read from standard input reaches it.
func TestPrintExecsTheAgentWithItsStreams(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cmd := exec.Command("indusr", "-C", dir, "--no-mcp", "-p", "--output-format", "bogus")
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+filepath.Join(dir, ".xdg"))
	cmd.Stdin = strings.NewReader("a prompt on stdin")
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != cli.ExitUsage || !strings.Contains(string(out), `--output-format "bogus"`) {
		t.Fatalf("exit %v, output %s", err, out)
	}
}
