// The terminal UI end to end: indusr runs in a tmux pane against the
// scripted model server of internal/fakemodel; the tests type as a user
// would and read the screen.
package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/indusagi/induscode/internal/fakemodel"
	"github.com/indusagi/induscode/internal/tmuxterm"
)

// bins holds indusr, indusr-agent and indusr-tui, built once for the package's tests
// (or taken from INDUSR_E2E_BINS, a folder holding the three).
var bins string

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	bins = os.Getenv("INDUSR_E2E_BINS")
	if bins == "" {
		dir, err := os.MkdirTemp("", "indusr-e2e-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.RemoveAll(dir)
		cmd := exec.Command("go", "build", "-o", dir+string(filepath.Separator), "../../../../indusr", "../../../../indusr-agent", "../../../../indusr-tui")
		if out, err := cmd.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "building indusr, indusr-agent and indusr-tui: %v\n%s", err, out)
			return 1
		}
		bins = dir
	}
	return m.Run()
}

// wait bounds every wait for the screen: a hang, not a speed, on a
// loaded machine.
const wait = 60 * time.Second

// session is indusr in a pane, its workspace and its model server.
type session struct {
	*tmuxterm.Term
	t   *testing.T
	dir string
	srv *fakemodel.Server
}

// open starts indusr in a new workspace holding files, at w columns by h
// rows, against a model server that answers with script, and waits for
// the prompt.
func open(t *testing.T, w, h int, files map[string]string, script ...fakemodel.Reply) *session {
	t.Helper()
	return openEnv(t, w, h, nil, files, script...)
}

// openEnv is open with more of the program's environment.
func openEnv(t *testing.T, w, h int, env []string, files map[string]string, script ...fakemodel.Reply) *session {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	srv := fakemodel.Start(t, script...)
	home := t.TempDir()
	term := tmuxterm.Start(t, tmuxterm.Options{Dir: dir, Width: w, Height: h, Env: append([]string{
		"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"ANTHROPIC_API_KEY=test", "ANTHROPIC_BASE_URL=" + srv.URL,
	}, env...)}, filepath.Join(bins, "indusr"), "--model", "anthropic/claude-sonnet-4-5")
	s := &session{Term: term, t: t, dir: dir, srv: srv}
	s.WaitFor("the prompt", wait, func(screen string) bool { return strings.Contains(screen, "> ") })
	return s
}

// file is the content of a workspace file.
func (s *session) file(name string) string {
	s.t.Helper()
	b, err := os.ReadFile(filepath.Join(s.dir, name))
	if err != nil {
		s.t.Fatal(err)
	}
	return string(b)
}

// ask types a prompt and sends it.
func (s *session) ask(prompt string) {
	s.t.Helper()
	s.Type(prompt)
	s.Keys("Enter")
}
